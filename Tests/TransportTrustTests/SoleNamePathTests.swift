import TestSupport
import Testing
import X509

@testable import TransportTrust

@Suite struct SoleNamePathTests {
    func path(_ leaf: TestCert, _ intermediates: [TestCert], anchors: [TestCert]) -> [Certificate]? {
        SoleNamePath(leaf: leaf.certificate, intermediates: intermediates.map(\.certificate),
                     anchors: TrustAnchors(custom: anchors.map(\.input)))?.certificates
    }

    @Test func findsTheOnePathTheNamesAllowInAnyOrder() {
        let root = PKI.root()
        let upper = root.intermediate("Upper CA")
        let lower = upper.intermediate("Lower CA")
        let leaf = lower.leaf()
        let expected = [leaf, lower, upper, root].map(\.certificate)
        #expect(path(leaf, [lower, upper], anchors: [root]) == expected)
        #expect(path(leaf, [upper, lower, PKI.root("Unrelated Root")], anchors: [root]) == expected)
    }

    /// Names alone: an intermediate of the right name but another key is still the path (its signature is the path
    /// builder's to check, if the rules pass).
    @Test func linksByNameNotBySignature() {
        let (root, _, leaf) = PKI.chain()
        let rekeyed = root.intermediate("Test Intermediate CA")
        #expect(path(leaf, [rekeyed], anchors: [root]) == [leaf, rekeyed, root].map(\.certificate))
    }

    @Test func aMissingIssuerLeavesNoPath() {
        let (root, intermediate, leaf) = PKI.chain()
        #expect(path(leaf, [], anchors: [root]) == nil)
        #expect(path(leaf, [intermediate], anchors: [PKI.root("Another Root")]) == nil)
    }

    @Test func twoPathsAreLeftToThePathBuilder() {
        let oldRoot = PKI.root("Old Root")
        let newRoot = PKI.root("New Root")
        let key = TestKey.p256()
        let viaOld = oldRoot.intermediate("Shared CA", key: key)
        let viaNew = newRoot.intermediate("Shared CA", key: key)
        let leaf = viaNew.leaf()
        #expect(path(leaf, [viaNew], anchors: [oldRoot, newRoot]) == [leaf, viaNew, newRoot].map(\.certificate))
        #expect(path(leaf, [viaOld, viaNew], anchors: [oldRoot, newRoot]) == nil)
        // Two anchors of one name are two paths as well.
        let twin = PKI.root("New Root")
        #expect(path(leaf, [viaNew], anchors: [newRoot, twin]) == nil)
    }

    @Test func aLeafThatIsAnAnchorIsItsOwnPath() {
        let selfSigned = PKI.issue(subject: PKI.name("www.example.com"), key: .p256(), issuer: nil, extensions: [])
        #expect(path(selfSigned, [], anchors: [selfSigned]) == [selfSigned.certificate])
        // Also chaining to another anchor of its name: two paths.
        let sameName = PKI.issue(subject: PKI.name("www.example.com"), key: .p256(), issuer: nil, extensions: [])
        #expect(path(selfSigned, [], anchors: [selfSigned, sameName]) == nil)
    }

    /// Two CAs cross-signed both ways, many times over, give ever more paths; the search stops at its limit.
    @Test func crossSignedCyclesEndTheSearch() {
        let root = PKI.root()
        let keyA = TestKey.p256(), keyB = TestKey.p256()
        let a = root.intermediate("CA A", key: keyA)
        let b = root.intermediate("CA B", key: keyB)
        var pool: [TestCert] = [a, b]
        for _ in 0..<20 {
            pool.append(PKI.issue(subject: PKI.name("CA A"), key: keyA, issuer: b, extensions: []))
            pool.append(PKI.issue(subject: PKI.name("CA B"), key: keyB, issuer: a, extensions: []))
        }
        let leaf = a.leaf()
        #expect(path(leaf, pool, anchors: [root]) == nil)
    }
}
