import AppBundles
import AppTransportSecurity
import ArgumentParser
import Foundation

struct CheckCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Print the effective ATS requirements for URLs, with the key and rule behind each one.",
        discussion: """
            With --tls and/or --cipher, also says whether such a connection would be allowed. Keys with a wrong type or value, and unknown, misplaced or repeated keys, are ignored; each is a warning on standard error (in "warnings" with --json).
            Exit status: 0, or 1 when a described connection would be blocked; 2 for usage or input errors.
            """
    )

    @Option(help: "The Info.plist, bare NSAppTransportSecurity plist, .app folder or .ipa (the app's own plist is used).")
    var plist: String

    @Argument(help: "URLs to check, e.g. https://api.example.com/v1.")
    var urls: [String] = []

    @OptionGroup var platformOption: PlatformOption

    @OptionGroup var readingOption: ReadingOption

    @Option(help: "Which API loads the URL: url-session (default), media or web-content.")
    var context: LoadContext = .urlSession

    @Option(help: ArgumentHelp("How deep NSIncludesSubdomains reaches: any-depth (the long-standing behaviour, default) or one-label (Apple's current NSIncludesSubdomains page).",
                               valueName: "depth"))
    var subdomains: SubdomainDepth = .anyDepth

    @Option(help: "Describe a connection: the negotiated TLS version (1.0, 1.1, 1.2, 1.3).")
    var tls: String?

    @Option(help: "Describe a connection: the negotiated cipher suite (IANA name or 0x code).")
    var cipher: String?

    @OptionGroup var report: ReportOptions
    var json: Bool { report.json }

    func validate() throws {
        if urls.isEmpty { throw ValidationError("give at least one URL, e.g. 'ats check --plist Info.plist https://example.com/'") }
        if let tls, TLSVersion(loose: tls) == nil { throw ValidationError("--tls '\(tls)' is not a TLS version; use 1.0, 1.1, 1.2 or 1.3") }
        // An unknown name describes no connection: judging it would say "blocked" or "allowed" depending on the plist.
        if let cipher, CipherSuite(lookup: cipher) == nil {
            let close = CipherSuite.closest(to: cipher).map(\.name)
            let hint = close.isEmpty ? "." : "; did you mean \(close.joined(separator: " or "))?"
            throw ValidationError("--cipher '\(cipher)' is an unknown cipher suite\(hint) Give an IANA name such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 or a code such as 0xC02F")
        }
    }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        let profile = platformOption.profile
        let source: ConfigurationSource
        do {
            source = try appConfiguration()
        } catch {
            out.error("ats check: \(error)\n")
            return 2
        }
        // Keys that are misspelt, misplaced or mistyped are ignored by the resolver; say so rather than let a
        // requirement look as if the key were absent.
        let warnings = Auditor(platform: platformOption.applePlatform).readingFindings(in: source)
        if !json {
            for w in warnings {
                let place = source.displayName + (w.location.map { ":\($0.line):\($0.column)" } ?? "")
                out.error("ats check: warning: \(place): \(w.rule.id) \(w.message)\n")
            }
        }
        let resolver = RequirementsResolver(configuration: source.configuration, platform: platformOption.applePlatform,
                                            subdomainMatching: subdomains == .oneLabel ? .oneLabel : .anyDepth)
        // Under the any-depth reading, the one-label reading tells where the two differ, so the flag can be named.
        let oneLabel = subdomains == .anyDepth
            ? RequirementsResolver(configuration: source.configuration, platform: platformOption.applePlatform, subdomainMatching: .oneLabel) : nil
        var results: [ATSCheckJSON.Entry] = []
        var text = ""
        var blocked = false
        for url in urls {
            let req: ConnectionRequirements
            do {
                req = try resolver.requirements(for: url, context: context)
            } catch {
                out.error("ats check: \(error)\n")
                return 2
            }
            let evaluation = describedConnection(under: req)
            if evaluation?.isAllowed == false { blocked = true }
            if json {
                results.append(ATSCheckJSON.Entry(req, evaluation: evaluation))
            } else {
                text += ATSCheckText.render(req, evaluation: evaluation, output: out)
                if let strict = try? oneLabel?.requirements(for: url, context: context), strict.exceptionDomain != req.exceptionDomain {
                    text += out.dim("  note: --subdomains one-label resolves this URL as Apple's current NSIncludesSubdomains page reads it") + "\n"
                }
            }
        }
        if json {
            out.write(ATSCheckJSON.encode(ATSCheckJSON(plist: source.displayName, profile: profile.rawValue, platform: platformOption.applePlatform.description,
                                                     warnings: warnings, results: results)) + "\n")
        } else {
            out.write(text)
        }
        return blocked ? 1 : 0
    }

    /// The configuration --plist holds: the app's own when it is a bundle with extensions.
    private func appConfiguration() throws -> ConfigurationSource {
        let sources = try readingOption.loader.load(path: plist)
        guard let first = sources.first(where: { $0.role != .appExtension }) ?? sources.first else {
            throw InputError("\(plist): no configuration found")
        }
        return first
    }

    /// The connection --tls and --cipher describe, judged under `requirements`; nil when neither is given.
    private func describedConnection(under requirements: ConnectionRequirements) -> ConnectionEvaluation? {
        guard tls != nil || cipher != nil else { return nil }
        let described = ConnectionDescription(scheme: requirements.target.scheme, tlsVersion: tls.flatMap(TLSVersion.init(loose:)), cipherSuite: cipher)
        return requirements.evaluate(described)
    }
}

extension LoadContext: ExpressibleByArgument {}

/// `--subdomains`: the two readings of NSIncludesSubdomains (docs/ATS.md, choices).
enum SubdomainDepth: String, ExpressibleByArgument, CaseIterable {
    case anyDepth = "any-depth"
    case oneLabel = "one-label"
}

/// `ats check` as text: one headline per URL, then each requirement with its provenance.
enum ATSCheckText {
    static func render(_ r: ConnectionRequirements, evaluation: ConnectionEvaluation?, output out: Output) -> String {
        var s = ""
        if r.target.scheme == "http" {
            let verdict = r.allowsInsecureHTTP.value ? out.green("plain HTTP allowed") : out.red("plain HTTP blocked")
            s += "\(r.url) → \(verdict) by \(r.allowsInsecureHTTP.because)\n"
        } else {
            s += "\(r.url) → HTTPS with TLS ≥ \(r.minimumTLSVersion.value) by \(r.minimumTLSVersion.because)\n"
        }
        func line(_ label: String, _ value: String, _ p: Provenance) {
            s += "  \(label.padding(toLength: 16, withPad: " ", startingAt: 0))\(value)  " + out.dim("← \(p)") + "\n"
        }
        line("ATS", r.atsEnforced.value ? "enforced" : "not enforced", r.atsEnforced.because)
        line("plain HTTP", r.allowsInsecureHTTP.value ? "allowed" : "blocked", r.allowsInsecureHTTP.because)
        line("minimum TLS", r.minimumTLSVersion.value.rawValue, r.minimumTLSVersion.because)
        line("forward secrecy", r.requiresForwardSecrecy.value ? "required" : "not required", r.requiresForwardSecrecy.because)
        let suites = r.cipherSuitesRestricted ? "\(r.cipherSuites.value.count) suites" : "not restricted by ATS"
        line("cipher suites", suites, r.cipherSuites.because)
        if r.cipherSuitesRestricted {
            for suite in r.cipherSuites.value { s += out.dim("                    \(suite.name)") + "\n" }
        }
        let c = r.certificate.value
        var cert = c.validation == .relaxed ? "relaxed (app may override trust)" : "default trust evaluation"
        cert += c.requiresATSKeyStrength ? ", RSA ≥ 2048 / EC ≥ 256" : ", no ATS key-size check"
        if c.requiresCertificateTransparency { cert += ", CT" }
        line("certificate", cert, r.certificate.because)
        if let pins = r.pins.value {
            line("pins", "\(pins.caIdentities?.count ?? 0) CA, \(pins.leafIdentities?.count ?? 0) leaf", r.pins.because)
        } else {
            line("pins", "none", r.pins.because)
        }
        for note in r.notes { s += out.dim("  note: \(note)") + "\n" }
        if let evaluation {
            s += "  connection      " + (evaluation.isAllowed ? out.green("allowed") : out.red("blocked")) + "\n"
            for reason in evaluation.reasons {
                s += "    \(reason.passed ? "✓" : "✗") \(reason.message)  " + out.dim("← \(reason.because)") + "\n"
            }
        }
        return s + "\n"
    }
}

/// `ats check --json`: one object per URL.
struct ATSCheckJSON: Encodable {
    var plist: String
    var profile: String
    /// The exact release (`iOS 12.1`): Certificate Transparency changed inside a profile's range.
    var platform: String
    /// How the plist is written wrong (the audit's findings for types, keys and values): those keys are ignored.
    var warnings: [Finding]
    var results: [Entry]

    struct Decision<T: Encodable>: Encodable {
        var value: T
        var key: String?
        var rule: String
    }

    struct Entry: Encodable {
        var url: String
        var host: String
        var context: String
        var exceptionDomain: String?
        var atsEnforced: Decision<Bool>
        var allowsInsecureHTTP: Decision<Bool>
        var minimumTLSVersion: Decision<String>
        var requiresForwardSecrecy: Decision<Bool>
        var cipherSuitesRestricted: Bool
        var cipherSuites: Decision<[String]>
        var certificate: Decision<CertificateRequirements>
        var pins: Decision<PinRequirement?>
        var notes: [String]
        var connection: Connection?

        struct Connection: Encodable {
            var allowed: Bool
            var reasons: [Reason]
        }

        struct Reason: Encodable {
            var check: String
            var passed: Bool
            var message: String
            var key: String?
            var rule: String
        }

        init(_ r: ConnectionRequirements, evaluation: ConnectionEvaluation?) {
            func d<T: Encodable & Sendable & Equatable, U: Encodable>(_ x: Decided<T>, _ f: (T) -> U) -> Decision<U> {
                Decision(value: f(x.value), key: x.because.keyPath?.description, rule: x.because.rule)
            }
            url = r.url
            host = r.target.host
            context = r.context.rawValue
            exceptionDomain = r.exceptionDomain
            atsEnforced = d(r.atsEnforced) { $0 }
            allowsInsecureHTTP = d(r.allowsInsecureHTTP) { $0 }
            minimumTLSVersion = d(r.minimumTLSVersion) { $0.rawValue }
            requiresForwardSecrecy = d(r.requiresForwardSecrecy) { $0 }
            cipherSuitesRestricted = r.cipherSuitesRestricted
            cipherSuites = d(r.cipherSuites) { $0.map(\.name) }
            certificate = d(r.certificate) { $0 }
            pins = Decision(value: r.pins.value, key: r.pins.because.keyPath?.description, rule: r.pins.because.rule)
            notes = r.notes
            connection = evaluation.map { e in
                Connection(allowed: e.isAllowed, reasons: e.reasons.map {
                    Reason(check: $0.check, passed: $0.passed, message: $0.message, key: $0.because.keyPath?.description, rule: $0.because.rule)
                })
            }
        }
    }

    static func encode(_ value: ATSCheckJSON) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return #"{"error":"could not encode the result"}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
