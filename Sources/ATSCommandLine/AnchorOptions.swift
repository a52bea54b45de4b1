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
    /// - Parameter requireSystemRoots: refuse, naming the fix, when the system roots are needed and none were found.
    func trustAnchors(requireSystemRoots: Bool = false) throws -> TrustAnchors {
        if paths.isEmpty {
            if requireSystemRoots && TrustAnchors.system.all.isEmpty {
                throw InputError("no system roots were found (set SSL_CERT_FILE or SSL_CERT_DIR, or give --anchors)")
            }
            return .system
        }
        var custom: [InputCertificate] = []
        for path in paths { custom += try CertificateLoader.certificates(atPath: path) }
        return TrustAnchors(custom: custom, anchorsOnly: anchorsOnly)
    }
}
