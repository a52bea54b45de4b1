import ArgumentParser
import Foundation
import TransportTrust

/// `--anchors` and `--anchors-only`, shared by every command that evaluates a chain.
struct AnchorOptions: ParsableArguments {
    @Option(name: .customLong("anchors"), help: "Trust anchors (PEM or DER). Without it the system roots are used. Repeatable.")
    var paths: [String] = []

    @Flag(name: .customLong("anchors-only"), inversion: .prefixedNo,
          help: "Trust only the given anchors (SecTrustSetAnchorCertificatesOnly), the default. --no-anchors-only adds the system roots.")
    var anchorsOnly: Bool = true

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
            let roots = systemRoots ?? .shared
            if requireSystemRoots, let reason = roots.emptyReason {
                let fix = roots.settings.isEmpty ? "set SSL_CERT_FILE or SSL_CERT_DIR" : "point \(roots.settings.map { $0.prefix { $0 != "=" } }.joined(separator: " or ")) at readable PEM certificates"
                throw InputError("no system roots were found: \(reason). To fix it, \(fix), or give --anchors")
            }
            anchors = systemRoots.map { TrustAnchors(custom: [], anchorsOnly: false, systemRoots: $0) } ?? .system
        } else {
            var custom: [InputCertificate] = []
            for path in paths { custom += try CertificateLoader.certificates(atPath: path) }
            anchors = TrustAnchors(custom: custom, anchorsOnly: anchorsOnly, systemRoots: systemRoots)
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
