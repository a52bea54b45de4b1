import NIOSSL
import TestSupport
import TestServersSupport
import Testing
import TransportTrust

@testable import TransportServer

/// One connection's verification as the server's callback starts it, without a handshake.
@Suite struct ConnectionVerdictTests {
    let root = PKI.root("Client Root CA")

    /// Starts the server's verification of `presented` on `decided` and waits for swift-nio-ssl's answer.
    func verify(_ presented: [[UInt8]], on decided: ConnectionVerdict, remembering chains: RecentChains) async -> NIOSSLVerificationResultWithMetadata {
        var policy = ClientVerificationPolicy(anchors: [root.input])
        policy.validationTime = PKI.now
        let verifier = ClientCertificateVerifier(policy: policy, engine: TrustEngine(cacheCapacity: 0))
        return await withCheckedContinuation { answered in
            decided.start {
                answered.resume(returning: await MutualTLSServer.verification(of: presented, verifier: verifier, decided: decided,
                                                                              recentChains: chains))
            }
        }
    }

    @Test func aGoodClientIsVerifiedAndRemembered() async {
        let ca = root.intermediate("Client Issuing CA")
        let presented = [MTLSFixture.clientLeaf(ca).der, ca.der]
        let decided = ConnectionVerdict(), chains = RecentChains(capacity: 4)
        let answer = await verify(presented, on: decided, remembering: chains)
        guard case .certificateVerified = answer else {
            Issue.record("expected a verified certificate, got \(answer): \(decided.value?.failures.map(\.message) ?? [])")
            return
        }
        #expect(decided.value?.isVerified == true)
        #expect(chains.chain(forLeaf: presented[0]) == presented)
    }

    /// The handshake limit passed (or the client left) while the verification waited for a thread: it refuses at once.
    /// The engine checks for cancellation only in its issuer search, so without the guard this straight chain would be
    /// verified in full, and trusted.
    @Test func aVerificationCancelledBeforeItRunsRefusesWithoutVerifying() async {
        let ca = root.intermediate("Client Issuing CA")
        let presented = [MTLSFixture.clientLeaf(ca).der, ca.der]
        let decided = ConnectionVerdict(), chains = RecentChains(capacity: 4)
        decided.cancel()
        let answer = await verify(presented, on: decided, remembering: chains)
        #expect(answer == .failed)
        #expect(decided.value?.isVerified == false)
        #expect(decided.value?.failures.map(\.code) == [.internalError])
        #expect(decided.value?.failures.first?.message.contains("cancelled before it ran") == true)
        #expect(chains.chain(forLeaf: presented[0]) == nil)
    }
}
