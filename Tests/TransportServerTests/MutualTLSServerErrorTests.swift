import NIOSSL
import TestSupport
import TestServersSupport
import Testing
import TransportTrust

@testable import TransportServer

/// A server that cannot be made says why in words, never with BoringSSL's error text (review-api F5).
@Suite struct MutualTLSServerErrorTests {
    let pki = PKI.chain()
    var policy: ClientVerificationPolicy { ClientVerificationPolicy(anchors: [pki.root.input]) }

    @Test func aKeyThatIsNotTheLeafsIsNamed() throws {
        let leaf = try NIOSSLCertificate(bytes: pki.leaf.der, format: .der)
        #expect(throws: MutualTLSServerError(.keyMismatch)) {
            _ = try MutualTLSServer(certificateChain: [leaf], privateKey: try TestKey.p256().nioPrivateKey(), policy: policy)
        }
        let error = MutualTLSServerError(.keyMismatch)
        #expect(error.description.contains("is not the key of the server's certificate") && !error.description.contains(".cc:"))
        _ = try MutualTLSServer(certificateChain: [leaf], privateKey: try pki.leaf.key.nioPrivateKey(), policy: policy)
    }

    @Test func anEmptyChainIsNamed() throws {
        #expect(throws: MutualTLSServerError(.noCertificate)) {
            _ = try MutualTLSServer(certificateChain: [], privateKey: try pki.leaf.key.nioPrivateKey(), policy: policy)
        }
    }
}
