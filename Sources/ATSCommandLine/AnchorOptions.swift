import ArgumentParser
import Foundation
import TransportTrust

/// `--anchors`, `--anchors-only` and `--trust-store`, shared by every command that evaluates a chain.
struct AnchorOptions: ParsableArguments {
    @Option(name: .customLong("anchors"), help: "Trust anchors (PEM or DER). Without it the roots of --trust-store are used. Repeatable.")
    var paths: [String] = []

    @Flag(name: .customLong("anchors-only"), inversion: .prefixedNo,
          help: "Trust only the given anchors (SecTrustSetAnchorCertificatesOnly), the default. --no-anchors-only adds the roots of --trust-store.")
    var anchorsOnly: Bool = true

    @Option(name: .customLong("trust-store"), help: ArgumentHelp(
        "The public roots: system (this machine's, the default; SSL_CERT_FILE and SSL_CERT_DIR are honoured) or apple (Apple's trust store 2025072000, as on iOS 26, with Apple's limits on its roots).",
        discussion: "With --anchors only those anchors are trusted; --no-anchors-only adds the store's roots. Apple's blocked certificates stay refused with --trust-store apple whatever the anchors. An anchor that is also a root of the store counts as public, as trustd decides: Apple's CT and 398-day rules apply through it."))
    var trustStore: TrustAnchors.Store = .system

    /// The anchors: the files' certificates, or the system roots when none were given.
    /// - Parameters:
    ///   - requireSystemRoots: refuse, saying why there are none and how to fix it, when the system roots are needed
    ///     and none can anchor a chain.
    ///   - warnings: where to warn, on standard error, of system roots skipped and anchors that cannot be used (see
    ///     ``TrustAnchors/problems``); nil when the caller reports them itself, as a JSON verdict's notes do.
    ///   - systemRoots: the roots to use instead of the process's, for tests.
    func trustAnchors(requireSystemRoots: Bool = false, warnings: Output?, systemRoots: SystemRoots? = nil) throws -> TrustAnchors {
        let anchors: TrustAnchors
        if paths.isEmpty {
            let roots = systemRoots ?? (trustStore == .apple ? .apple : .shared)
            if requireSystemRoots, let reason = roots.emptyReason {
                let fix = trustStore == .apple ? "reinstall ats with its resources, or use --trust-store system"
                    : roots.settings.isEmpty ? "set SSL_CERT_FILE or SSL_CERT_DIR" : "point \(roots.settings.map { $0.prefix { $0 != "=" } }.joined(separator: " or ")) at readable PEM certificates"
                let which = trustStore == .apple ? "Apple trust store roots" : "system roots"
                throw InputError("no \(which) were found: \(reason). To fix it, \(fix), or give --anchors")
            }
            if let systemRoots {
                anchors = TrustAnchors(custom: [], anchorsOnly: false, systemRoots: systemRoots, store: trustStore)
            } else {
                anchors = trustStore == .apple ? .apple : .system
            }
        } else {
            var custom: [InputCertificate] = []
            for path in paths { custom += try CertificateLoader.certificates(atPath: path) }
            anchors = TrustAnchors(custom: custom, anchorsOnly: anchorsOnly, systemRoots: systemRoots, store: trustStore)
        }
        if let warnings { Self.warn(anchors, to: warnings) }
        return anchors
    }

    /// One `warning:` line per problem, at most ten, so that a broken bundle of 140 roots does not bury the verdict.
    static func warn(_ anchors: TrustAnchors, to output: Output) {
        let problems = anchors.problems
        for problem in problems.prefix(10) { output.error("warning: \(problem)\n") }
        if problems.count > 10 { output.error("warning: and \(problems.count - 10) more problems with the anchors\n") }
    }
}

extension TrustAnchors.Store: ExpressibleByArgument {}
