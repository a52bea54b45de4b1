import ArgumentParser
import Foundation
import TransportTrust

struct PinsCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "pins",
        abstract: "Print the SPKI SHA-256 pins of certificates, as a list or a ready-to-paste configuration; or check a chain against pins.",
        discussion: """
            Without --pin or --pin-file: prints, for every certificate in the files, base64(SHA-256(SubjectPublicKeyInfo)) with its \
            subject and whether it is a CA. --format ats|trustkit|trustkit-json|okhttp|android prints a snippet pinning the CA \
            certificates (add --include-leaf to pin the leaf too); --format json prints the list as JSON.

            With --pin HASH... and/or --pin-file FILE: the files are a chain (leaf first). It is validated (--anchors, --host) and \
            the pins are checked against the chain as built. Exit status: 0 trusted, 1 not trusted (pinMismatch lists the chain's \
            actual hashes), 2 usage or input error.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case list, ats, trustkit, trustkitJSON = "trustkit-json", okhttp, android, json
    }

    @Argument(help: "PEM or DER certificate files (- reads standard input), or https://HOST[:PORT] to take the chain a server presents.")
    var files: [String] = []

    @Option(help: "list (default), ats, trustkit, trustkit-json, okhttp, android or json.")
    var format: Format = .list

    @Option(help: "The host the snippet pins, or the host the chain is checked for.")
    var host: String?

    @Flag(name: .customLong("include-subdomains"), help: "Snippets: pin the host and every name below it.")
    var includeSubdomains = false

    @Flag(name: .customLong("include-leaf"), help: "Snippets: pin the leaf as well as the CA certificates.")
    var includeLeaf = false

    @OptionGroup var pinOptions: PinOptions

    @OptionGroup(title: "Check mode: anchors") var anchorOptions: AnchorOptions

    @Flag(name: .customLong("skip-validation"), help: "Check mode: build the chain but ignore validation failures; check pins only.")
    var skipValidation = false

    @Option(help: "Check mode: validation time, RFC 3339 (default: now).")
    var at: String?

    /// --json: in check mode the verdict as one JSON object; otherwise the pins as JSON, as --format json prints them.
    @OptionGroup var report: ReportOptions
    var json: Bool { report.json }

    @Option(parsing: .unconditional, help: "For https:// arguments: seconds to wait for the server's chain (default 10).")
    var timeout: Double = 10

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one certificate file, e.g. 'ats pins chain.pem'") }
        if !(timeout > 0 && timeout <= 3600) { throw ValidationError("--timeout must be a number of seconds above 0 and at most 3600, not \(timeout)") }
        if isCheck && format != .list { throw ValidationError("--format prints pins; it cannot be combined with --pin or --pin-file") }
        // Check-mode options would otherwise be ignored without a word while the pins are printed.
        if !isCheck {
            let unused = (anchorOptions.paths.isEmpty ? [] : ["--anchors"]) + (skipValidation ? ["--skip-validation"] : []) + (at == nil ? [] : ["--at"])
            if let first = unused.first {
                let rootHint = first == "--anchors" ? "; to print a root's pin, give its file with the others: 'ats pins chain.pem root.pem'" : ""
                throw ValidationError("\(unused.joined(separator: ", ")) \(unused.count == 1 ? "is" : "are") for checking a chain against --pin or --pin-file, and nothing is checked without them\(rootHint)")
            }
        }
        if !isCheck && json && format != .list && format != .json {
            throw ValidationError("--json prints the pins as JSON, and --format \(format.rawValue) prints a snippet; give one of them")
        }
        // Snippet options, likewise: a user who adds --include-subdomains to a check might think the check covered it.
        if !isSnippet {
            let unused = (includeLeaf ? ["--include-leaf"] : []) + (includeSubdomains ? ["--include-subdomains"] : [])
            if !unused.isEmpty {
                let mode = isCheck ? "checking a chain against --pin or --pin-file prints none" : "no snippet is printed without one"
                throw ValidationError("\(unused.joined(separator: ", ")) \(unused.count == 1 ? "is" : "are") for the snippets of --format ats, trustkit, trustkit-json, okhttp or android, and \(mode)")
            }
            if !isCheck && host != nil {
                throw ValidationError("--host is for the snippets of --format ats, trustkit, trustkit-json, okhttp or android, or for checking a chain against --pin or --pin-file; the list of pins names no host")
            }
        }
    }

    var isCheck: Bool { !pinOptions.isEmpty }

    /// A configuration snippet is printed: --format names one and no --pin or --json asks for something else.
    var isSnippet: Bool { !isCheck && !json && format != .list && format != .json }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        do {
            var certificates: [(file: String, certificate: InputCertificate)] = []
            for file in files {
                if file.lowercased().hasPrefix("http://") {
                    throw InputError("'\(file)': a chain is taken only from an https:// server; write https://HOST[:PORT]")
                }
                if file.lowercased().hasPrefix("https://") {
                    certificates += try await PresentedChain.fetch(file, timeout: .milliseconds(Int64(timeout * 1000))).map { (file, $0) }
                } else {
                    certificates += try CertificateLoader.certificates(atPath: file).map { (file, $0) }
                }
            }
            if isCheck { return try await check(certificates.map(\.certificate), output: out) }
            try print(certificates, output: out)
            return 0
        } catch {
            out.error("ats pins: \(error)\n")
            return 2
        }
    }

    // MARK: Printing pins

    struct Row: Encodable {
        var file: String
        var subject: String
        var isCertificateAuthority: Bool
        var keyType: String
        var spkiSHA256: String
        var pin: String
    }

    func print(_ certificates: [(file: String, certificate: InputCertificate)], output out: Output) throws {
        let rows = certificates.map { c -> Row in
            let s = CertificateSummary(c.certificate)
            return Row(file: c.file, subject: s.subject, isCertificateAuthority: Self.isCA(c.certificate, summary: s), keyType: s.keyType,
                       spkiSHA256: s.spkiSHA256, pin: "sha256/" + s.spkiSHA256)
        }
        switch json ? Format.json : format {
        case .list:
            for r in rows {
                out.write("\(r.pin)  \(NameDisplay.plain(r.subject))  \(out.dim("[\(r.isCertificateAuthority ? "CA" : "leaf")] \(r.keyType)"))\n")
            }
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            out.write(String(decoding: try encoder.encode(rows), as: UTF8.self) + "\n")
        case .ats: try printSnippet(.ats, rows: rows, certificates: certificates, output: out)
        case .trustkit: try printSnippet(.trustKit, rows: rows, certificates: certificates, output: out)
        case .trustkitJSON: try printSnippet(.trustKitJSON, rows: rows, certificates: certificates, output: out)
        case .okhttp: try printSnippet(.okhttp, rows: rows, certificates: certificates, output: out)
        case .android: try printSnippet(.android, rows: rows, certificates: certificates, output: out)
        }
    }

    /// A `target` configuration pinning the CA certificates (and the leaf with --include-leaf, or when there is no
    /// CA), on standard output; what the target system will make of it, on standard error.
    private func printSnippet(_ target: PinConfigurationFormat, rows: [Row], certificates: [(file: String, certificate: InputCertificate)],
                              output out: Output) throws {
        let hostName = host ?? "example.com"
        let pattern: HostPattern
        do { pattern = try HostPattern(hostName, includeSubdomains: includeSubdomains) } catch { throw InputError("--host: \(error)") }
        let (set, caPinned) = try pinSet(for: target, rows: rows, certificates: certificates)
        // The snippet is checked by the target system's rules, so that it is not one that system refuses. Its backup
        // pin and its host's registrable domain (a local test host has none) are said below rather than refused.
        let snippet = PinConfiguration([PinnedHost(pattern, set)], rules: target.rules.subtracting(.backupPin))
        let checks: [PinConfigurationWarning]
        do { checks = try snippet.validate() } catch { throw InputError("--host: \(error)") }
        let (text, warnings) = target.write(snippet)
        out.write(text)
        if host == nil { out.error("note: the snippet pins example.com; give --host for your own name\n") }
        if target == .trustKit || target == .trustKitJSON, !(pattern.coversSubdomains && PublicSuffixList.isPublicSuffix(pattern.name)),
           !PublicSuffixList.hasRegistrableDomain(pattern.name) {
            out.error("warning: TrustKit refuses \(pattern.name) at start-up (\"TrustKit was initialized with an invalid domain\"): it has no registrable domain under a public suffix; pin the name your app uses, such as api.example.com\n")
        }
        if !caPinned { out.error("note: no CA certificate was given, so the leaf is pinned; its pin changes whenever the key is renewed\n") }
        for w in checks + warnings { out.error("\(w)\n") }
        if target.rules.contains(.backupPin) && Set(set.allPins).count < 2 {
            out.error("warning: TrustKit refuses an enforced pin set with fewer than two pins: add a backup pin (the SPKI hash of a spare key kept offline, or of another CA you may move to) before you use this snippet.\n")
        } else {
            out.error("reminder: add a backup pin (the SPKI hash of a spare key kept offline, or of another CA you may move to). With a single pin, losing that key locks every client out.\n")
        }
    }

    /// The pins of the snippet, and whether a CA certificate was among those given. ATS keeps CA and leaf pins apart;
    /// the other formats take one list.
    private func pinSet(for target: PinConfigurationFormat, rows: [Row],
                        certificates: [(file: String, certificate: InputCertificate)]) throws -> (PinSet, caPinned: Bool) {
        var set = PinSet()
        var caPins: [Pin] = [], leafPins: [Pin] = []
        for (row, c) in zip(rows, certificates) {
            let pin = try Pin.spkiSHA256(of: c.certificate)
            if row.isCertificateAuthority { caPins.append(pin) } else { leafPins.append(pin) }
        }
        let pinLeaf = includeLeaf || caPins.isEmpty
        if target == .ats {
            set.caPins = Self.unique(caPins)
            if pinLeaf { set.leafPins = Self.unique(leafPins) }
        } else {
            set.pins = Self.unique(caPins + (pinLeaf ? leafPins : []))
        }
        return (set, !caPins.isEmpty)
    }

    static func unique(_ pins: [Pin]) -> [Pin] {
        var seen: Set<Pin> = []
        return pins.filter { seen.insert($0).inserted }
    }

    /// Whether `certificate` is a CA: its basicConstraints, read from the DER so that certificates swift-certificates
    /// cannot parse (RSA-1024, RSA-PSS) are judged the same way. A v1 or v2 certificate has no extensions; a
    /// self-issued one is a root (RFC 5280 §6.1.4 (k) leaves v1 CAs to out-of-band trust, as anchors are).
    static func isCA(_ certificate: InputCertificate, summary: CertificateSummary) -> Bool {
        guard let raw = certificate.raw else { return summary.isCertificateAuthority }
        switch raw.basicConstraints {
        case .isCertificateAuthority?: return true
        case .notCertificateAuthority?: return false
        case nil: return raw.version < 3 && raw.subject == raw.issuer
        }
    }

    // MARK: Checking a chain

    func check(_ chain: [InputCertificate], output out: Output) async throws -> Int32 {
        var peer: PeerName?
        if let host {
            do { peer = try PeerName(host) } catch { throw InputError("--host: \(error)") }
        }
        let trustAnchors = try anchorOptions.trustAnchors(requireSystemRoots: !skipValidation, warnings: json ? nil : out)
        let time = try validationTime(at: at)
        var trust = ServerTrust(chain: chain, anchors: trustAnchors, policy: peer.map { .ssl(host: $0) } ?? .basicX509, validationTime: time)
        let validation: any ServerTrustEvaluating = skipValidation ? BuildOnlyEvaluator() : DefaultTrustEvaluator()
        // No evaluator: the pin file pins nothing for this host, so the chain is validated only, as its system would.
        let pinned = try pinOptions.evaluator(for: host, now: time ?? Date(), validation: validation, output: out)
        if let implied = pinOptions.impliedHost(by: pinned, host: host, output: out) { trust.policy = .ssl(host: implied) }
        let evaluator: any ServerTrustEvaluating = pinned ?? validation
        let verdict = await evaluator.evaluate(trust)
        out.write(json ? VerdictRendering.json(verdict, anchors: trust.anchors, policy: trust.policy) + "\n"
                       : VerdictRendering.text(verdict, host: host, colors: out.palette, store: trust.anchors.trustStore))
        return verdict.isTrusted ? 0 : 1
    }
}

/// Builds the chain and keeps it, but reports validation failures as notes only (`--skip-validation`).
struct BuildOnlyEvaluator: ServerTrustEvaluating {
    func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        let built = await TrustEngine.shared.evaluate(trust)
        // The chain reached an anchor only if it passed validation; otherwise it is only the best chain built.
        var v = built.acceptingInvalid("validation skipped")
        if !built.isTrusted { v.anchor = nil }
        return v
    }
}

