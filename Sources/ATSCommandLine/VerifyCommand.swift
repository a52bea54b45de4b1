import ArgumentParser
import HTMLReports
import Foundation
import SwiftASN1
import TransportTrust
import X509

struct VerifyCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Evaluate a certificate chain as SecTrust would, and explain the verdict.",
        discussion: """
            Exit status: 0 trusted, 1 not trusted, 2 usage or input error.
            Under the SSL policy Apple's TLS server rules for --platform apply, with or without --ats: RSA keys of at least \
            2048 bits and leaves valid for at most 825 days (iOS 13, macOS 10.15 and later), and at most 398 days for leaves \
            issued from 2020-09-01 that chain to a public root (iOS 14, macOS 11 and later). --trust-store apple evaluates \
            against Apple's root store (iOS 26) with Apple's limits on its roots.
            With --limbo, runs every SERVER testcase of an x509-limbo file and writes limbo's result shape: the webpki profile \
            and iOS 26's TLS server rules under each case's own anchors, with Certificate Transparency off (limbo states no \
            SCT expectations); --platform and --trust-store do not apply.
            With --pkits DIR, runs the NIST PKITS tests of DIR/tests.json (certificates in DIR/certs) under the basic policy, \
            each with its own initial policy inputs and its root as the only anchor, revocation checked hard-fail against \
            each test's CRLs; the three DSA tests are skipped with the reason. Score the results with scripts/score-pkits.py.
            """
    )

    @Argument(help: "The chain as presented by the server, PEM or DER, leaf first; - reads standard input.")
    var chain: String?

    @Option(name: .customLong("intermediates"), help: "Further intermediates to consider (PEM or DER). Repeatable.")
    var intermediates: [String] = []

    @OptionGroup var anchorOptions: AnchorOptions

    @Option(help: "The host connected to: a DNS name or an IP address.")
    var host: String?

    @Option(help: "ssl (default when --host is given) or basic.")
    var policy: PolicyName?

    @Option(help: "Validation time, RFC 3339 (default: now).")
    var at: String?

    @Option(help: "standard (what SecTrust checks) or webpki (also the CA/Browser Forum profile).")
    var profile: TrustPolicy.Profile = .standard

    @Flag(help: "Add the ATS certificate-strength policy (RSA ≥ 2048, EC ≥ 256, SHA-256+).")
    var ats = false

    @OptionGroup var platformOption: PlatformOption

    // Unconditional, so that "-1" reaches validate() as a value instead of "Missing value for '--max-depth'".
    @Option(name: .customLong("max-depth"), parsing: .unconditional, help: "Most intermediate CAs allowed (default 8).")
    var maxDepth: Int?

    @Option(name: .customLong("ocsp-response"),
            help: "A DER OCSP response (stapled or fetched), checked against every certificate of the chain; with no --revocation, soft-fail. Repeatable.")
    var ocspResponses: [String] = []

    @Option(name: .customLong("crl"),
            help: "A CRL file (DER or PEM, complete or delta), checked against every certificate of the chain (RFC 5280 §6.3); with no --revocation, soft-fail. Repeatable.")
    var crls: [String] = []

    @Option(help: "Revocation checking: off (default, or soft with --ocsp-response or --crl), soft or hard.")
    var revocation: RevocationOptions.Mode?

    @Option(name: .customLong("policy-oid"),
            help: "A certificate policy the path may be valid for, as a dotted OID (RFC 5280 user-initial-policy-set). Repeatable; default anyPolicy (2.5.29.32.0).")
    var policyOIDs: [String] = []

    @Flag(name: .customLong("require-explicit-policy"),
          help: "The path must be valid for one of the --policy-oid policies (RFC 5280 initial-explicit-policy).")
    var requireExplicitPolicy = false

    @Flag(name: .customLong("inhibit-policy-mapping"), help: "Refuse policy mapping (RFC 5280 initial-policy-mapping-inhibit).")
    var inhibitPolicyMapping = false

    @Option(name: .customLong("eku"),
            help: "With --policy basic, a key purpose the leaf must be valid for: serverAuth, clientAuth, codeSigning, emailProtection, timeStamping, ocspSigning, any (anyExtendedKeyUsage), or a dotted OID. Repeatable. The leaf's extendedKeyUsage, if any, must list it; a CA's, if any, must list it or anyExtendedKeyUsage.")
    var keyPurposes: [String] = []

    @Option(name: .customLong("distrust"),
            help: "Refuse every path through a certificate or key this file lists: PEM certificates (or one DER certificate), PEM PUBLIC KEY blocks, and sha256/BASE64 lines (SHA-256 of the SubjectPublicKeyInfo); # starts a comment. Repeatable.")
    var distrustFiles: [String] = []

    @Flag(name: .customLong("inhibit-any-policy"),
          help: "anyPolicy in a certificate stands for no other policy (RFC 5280 initial-any-policy-inhibit).")
    var inhibitAnyPolicy = false

    @OptionGroup(title: "Certificate Transparency (embedded SCTs, under the SSL policy, for chains to a system root)")
    var ctOptions: CTOptions

    @OptionGroup(title: "Pinning (checked against the chain as built, after validation)")
    var pinOptions: PinOptions

    /// --json prints one JSON object (the same as --format json); --output FILE takes the report, or with --limbo and
    /// --pkits the run's results.
    @OptionGroup var report: ReportOptions
    var json: Bool { report.json }
    var output: String? { report.output }
    var reportGoesToStandardOutput: Bool { limbo == nil && pkits == nil }

    @Option(help: "text (default), json, or html: one self-contained page with the chain as a tree and each failing rule marked.")
    var format: ReportFormat?

    @Option(help: "Run an x509-limbo suite file instead of one chain.")
    var limbo: String?

    @Option(help: "Run the NIST PKITS suite in this directory (its tests.json and certs/) instead of one chain.")
    var pkits: String?


    @Option(help: "With --limbo or --pkits: only cases whose id contains this text.")
    var only: String?

    enum PolicyName: String, ExpressibleByArgument, CaseIterable { case ssl, basic }

    func validate() throws {
        _ = try ReportFormat.chosen(format, json: json)
        if limbo == nil && pkits == nil && chain == nil {
            throw ValidationError("give a chain file, e.g. 'ats verify chain.pem --host example.com', or --limbo FILE, or --pkits DIR")
        }
        if limbo != nil && pkits != nil { throw ValidationError("--limbo and --pkits are two runs; give one of them") }
        // Both only shape a suite run; for one chain they would do nothing.
        if limbo == nil && pkits == nil && only != nil {
            throw ValidationError("--only picks cases of --limbo or --pkits; for one chain, drop it")
        }
        if limbo != nil && output == nil { throw ValidationError("--limbo needs --output RESULTS.json") }
        if pkits != nil && output == nil { throw ValidationError("--pkits needs --output RESULTS.json") }
        if pkits != nil && (!policyOIDs.isEmpty || requireExplicitPolicy || inhibitPolicyMapping || inhibitAnyPolicy) {
            throw ValidationError("--pkits runs each test with its own initial policy inputs; drop --policy-oid, --require-explicit-policy, --inhibit-policy-mapping and --inhibit-any-policy")
        }
        if let maxDepth, maxDepth < 0 || maxDepth > 64 { throw ValidationError("--max-depth must be between 0 and 64, not \(maxDepth)") }
        if !keyPurposes.isEmpty && (limbo != nil || pkits != nil) {
            throw ValidationError("--limbo and --pkits take each case's key purposes from the suite; drop --eku")
        }
        if !distrustFiles.isEmpty && (limbo != nil || pkits != nil) {
            throw ValidationError("--distrust checks one chain; it cannot be combined with --limbo or --pkits")
        }
        if !keyPurposes.isEmpty && policy != .basic {
            throw ValidationError("--eku sets the key purposes of --policy basic; the SSL policy always requires serverAuth. Add --policy basic")
        }
        if policy == .basic && host != nil { throw ValidationError("--policy basic checks no host; drop --host or use --policy ssl") }
        if limbo != nil && !pinOptions.isEmpty { throw ValidationError("--pin and --pin-file check one chain; they cannot be combined with --limbo") }
    }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        if let limbo, let output {
            return await LimboRunner(path: limbo, outputPath: output, filter: only).run(output: out)
        }
        if let pkits, let output {
            return await PKITSRunner(directory: pkits, outputPath: output, filter: only).run(output: out)
        }
        do {
            var trust = try makeTrust(output: out)
            let verdict: TrustVerdict
            if let pinned = try pinOptions.evaluator(for: host, validation: DefaultTrustEvaluator(), output: out) {
                if policy != .basic, let implied = pinOptions.impliedHost(by: pinned, host: host, output: out) { trust.policy.kind = .ssl(implied) }
                verdict = await pinned.evaluate(trust)
            } else {
                verdict = await trust.evaluate()
            }
            switch try ReportFormat.chosen(format, json: json) {
            case .json: out.write(VerdictRendering.json(verdict, anchors: trust.anchors, policy: trust.policy) + "\n")
            case .html: out.write(VerifyHTMLReport.render(verdict, host: host) + "\n")
            case .text: out.write(VerdictRendering.text(verdict, host: host, colors: out.palette, store: trust.anchors.trustStore))
            }
            return verdict.isTrusted ? 0 : 1
        } catch {
            out.error("ats verify: \(error)\n")
            return 2
        }
    }

    func makeTrust(output: Output) throws -> ServerTrust {
        guard let chain else { throw InputError("no chain given") }
        let presented = try CertificateLoader.certificates(atPath: chain)
        var extra: [InputCertificate] = []
        for path in intermediates { extra += try CertificateLoader.certificates(atPath: path) }
        let trustAnchors = try anchorOptions.trustAnchors(requireSystemRoots: true, warnings: json ? nil : output)
        var peer: PeerName?
        if let host {
            do { peer = try PeerName(host) } catch { throw InputError("--host: \(error)") }
        }
        var trustPolicy: TrustPolicy = (policy == .basic) ? .basicX509 : .ssl(host: peer)
        trustPolicy.requiresATSStrength = ats
        trustPolicy.platform = platformOption.applePlatform
        trustPolicy.profile = profile
        if let maxDepth { trustPolicy.maximumIntermediates = maxDepth }
        trustPolicy.certificatePolicies = try certificatePolicyOptions()
        if !keyPurposes.isEmpty { trustPolicy.requiredExtendedKeyUsages = try requiredKeyPurposes() }
        trustPolicy.distrusted = try distrustLists()
        trustPolicy.revocation = try OCSPResponseFiles.revocation(mode: revocation, responses: ocspResponses, crls: crls,
                                                                   options: ("--ocsp-response", "--revocation"))
        trustPolicy.certificateTransparency = try ctOptions.options(warnings: json ? nil : output)
        let time = try validationTime(at: at)
        return ServerTrust(chain: presented, additionalIntermediates: extra, anchors: trustAnchors, policy: trustPolicy, validationTime: time)
    }
}

extension VerifyCommand {
    /// RFC 5280's initial policy inputs from --policy-oid and the three flags.
    func certificatePolicyOptions() throws -> CertificatePolicyOptions {
        var acceptable = Set<ASN1ObjectIdentifier>()
        for text in policyOIDs {
            do { acceptable.insert(try Self.policyOID(text)) } catch {
                throw InputError("--policy-oid '\(text)' is not an object identifier: \(error.text); write it in dotted form, like 2.16.840.1.101.3.2.1.48.1 (anyPolicy is 2.5.29.32.0)")
            }
        }
        return CertificatePolicyOptions(acceptablePolicies: acceptable.isEmpty ? [CertificatePolicyOptions.anyPolicy] : acceptable,
                                        requireExplicitPolicy: requireExplicitPolicy, inhibitPolicyMapping: inhibitPolicyMapping,
                                        inhibitAnyPolicy: inhibitAnyPolicy)
    }

    /// The purposes named by --eku, each once, in the order given.
    func requiredKeyPurposes() throws -> [ExtendedKeyUsage.Usage] {
        var usages: [ExtendedKeyUsage.Usage] = []
        for text in keyPurposes {
            let usage: ExtendedKeyUsage.Usage
            if let named = Self.keyPurposes.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) {
                usage = named.usage
            } else if text.first?.isNumber == true {
                do { usage = ExtendedKeyUsage.Usage(oid: try Self.policyOID(text)) } catch {
                    throw InputError("--eku '\(text)' is not an object identifier: \(error.text); write a dotted OID like 1.3.6.1.5.5.7.3.1")
                }
            } else {
                throw InputError("--eku '\(text)' is not a key purpose; use one of \(Self.keyPurposes.map(\.name).joined(separator: ", ")), or a dotted OID")
            }
            if !usages.contains(usage) { usages.append(usage) }
        }
        return usages
    }

    /// The lists of --distrust, one per file.
    func distrustLists() throws -> [DistrustList] {
        var lists: [DistrustList] = []
        for path in distrustFiles {
            let data: Data
            do { data = try InputFile.read(path) } catch { throw InputError("--distrust \(InputFile.source(path)): \(error.reason)") }
            do { lists.append(try DistrustList(source: InputFile.source(path), contents: Array(data))) } catch {
                throw InputError("--distrust \(error)")
            }
        }
        return lists
    }

    static let keyPurposes: [(name: String, usage: ExtendedKeyUsage.Usage)] = [
        ("serverAuth", .serverAuth), ("clientAuth", .clientAuth), ("codeSigning", .codeSigning), ("emailProtection", .emailProtection),
        ("timeStamping", .timeStamping), ("ocspSigning", .ocspSigning), ("any", .any),
    ]

    struct OIDError: Error { var text: String }

    /// A dotted OID as X.660 allows it: two arcs at least, the first 0 to 2, the second below 40 under 0 and 1, and
    /// decimal arcs without leading zeros.
    static func policyOID(_ text: String) throws(OIDError) -> ASN1ObjectIdentifier {
        let arcs = text.split(separator: ".", omittingEmptySubsequences: false)
        guard arcs.count >= 2 else { throw OIDError(text: "it needs at least two arcs separated by dots") }
        var values: [UInt] = []
        for arc in arcs {
            guard !arc.isEmpty, arc.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw OIDError(text: "'\(arc)' is not a decimal number")
            }
            guard arc == "0" || !arc.hasPrefix("0") else { throw OIDError(text: "the arc '\(arc)' has a leading zero") }
            guard let value = UInt(arc) else { throw OIDError(text: "the arc '\(arc)' is too large") }
            values.append(value)
        }
        guard values[0] <= 2 else { throw OIDError(text: "the first arc must be 0, 1 or 2") }
        guard values[0] == 2 || values[1] < 40 else { throw OIDError(text: "under \(values[0]) the second arc must be below 40") }
        do { return try ASN1ObjectIdentifier(elements: values) } catch { throw OIDError(text: "its arcs cannot be encoded") }
    }
}

extension RevocationOptions.Mode: ExpressibleByArgument {}

/// `--at`, as verify and pins take it: nil for now.
func validationTime(at: String?) throws -> Date? {
    guard let at else { return nil }
    do { return try RFC3339.parseStrictly(at) } catch {
        throw InputError("--at '\(at)' is not an RFC 3339 time (\(error)); write it like 2026-01-31T12:00:00Z")
    }
}
extension TrustPolicy.Profile: ExpressibleByArgument {}

