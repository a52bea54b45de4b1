import TestSupport
import Testing
import X509

@testable import TransportTrust

@Suite struct TrustEngineCandidatesTests {
    func candidates(_ leaf: TestCert, _ others: [TestCert], anchors: [TestCert] = []) -> TrustEngine.Candidates {
        TrustEngine.Candidates(leaf: leaf.certificate, leafInput: leaf.input, others: others.map(\.input),
                               anchors: TrustAnchors(custom: anchors.map(\.input)))
    }

    @Test func aCertificateSentTwiceIsOneCandidateInItsFirstPlace() {
        let (root, intermediate, leaf) = PKI.chain()
        let other = root.intermediate("Other CA")
        let found = candidates(leaf, [intermediate, other, intermediate, leaf])
        // The leaf sent again among the others stays a candidate issuer, as the path builder is given it.
        #expect(found.intermediates == [intermediate, other, leaf].map(\.certificate))
        #expect(found.input(for: leaf.certificate)?.der == leaf.der)
        #expect(found.input(for: intermediate.certificate)?.der == intermediate.der)
    }

    /// Past a few intermediates the lookup is by hash: every one must still find its own input, duplicates included.
    @Test(arguments: [1, 8, 9, 40])
    func everyIntermediateFindsItsOwnInput(count: Int) {
        let root = PKI.root()
        let sent = (0..<count).map { root.intermediate("CA \($0)") }
        let found = candidates(root.leaf(), sent + sent.reversed())
        #expect(found.intermediates.count == count)
        for cert in sent { #expect(found.input(for: cert.certificate)?.der == cert.der) }
        #expect(found.input(for: PKI.root("Not Sent").certificate) == nil)
    }

    @Test func aChainIsMappedBackToItsInputsAndAnchor() {
        let (root, intermediate, leaf) = PKI.chain()
        let found = candidates(leaf, [intermediate], anchors: [root])
        #expect(found.inputs([leaf, intermediate, root].map(\.certificate)).map(\.der) == [leaf, intermediate, root].map(\.der))
    }

    @Test func theSameIntermediateSentTwiceIsTrusted() async throws {
        let (root, intermediate, leaf) = PKI.chain()
        let trust = ServerTrust(certificates: [leaf.der, intermediate.der, intermediate.der],
                                anchors: TrustAnchors(custom: [root.input]), policy: .ssl(host: try PeerName("www.example.com")))
        let verdict = await TrustEngine(cacheCapacity: 0).evaluate(trust)
        #expect(verdict.isTrusted, "\(verdict.failures.map(\.message))")
        #expect(verdict.chain.map(\.der) == [leaf, intermediate, root].map(\.der))
    }
}
