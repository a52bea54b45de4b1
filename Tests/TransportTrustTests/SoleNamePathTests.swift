import TestSupport
import Testing
import X509

@testable import TransportTrust

@Suite struct SoleNamePathTests {
    func search(_ leaf: TestCert, _ intermediates: [TestCert], anchors: [TestCert]) -> SoleNamePath {
        SoleNamePath(leaf: leaf.certificate, intermediates: intermediates.map(\.certificate),
                     anchors: TrustAnchors(custom: anchors.map(\.input)))
    }

    @Test func findsTheOnePathTheNamesAllowInAnyOrder() {
        let root = PKI.root()
        let upper = root.intermediate("Upper CA")
        let lower = upper.intermediate("Lower CA")
        let leaf = lower.leaf()
        let expected = SoleNamePath.found([leaf, lower, upper, root].map(\.certificate))
        #expect(search(leaf, [lower, upper], anchors: [root]) == expected)
        #expect(search(leaf, [upper, lower, PKI.root("Unrelated Root")], anchors: [root]) == expected)
    }

    /// Names alone: an intermediate of the right name but another key is still the path (its signature is the path
    /// builder's to check, if the rules pass).
    @Test func linksByNameNotBySignature() {
        let (root, _, leaf) = PKI.chain()
        let rekeyed = root.intermediate("Test Intermediate CA")
        #expect(search(leaf, [rekeyed], anchors: [root]) == .found([leaf, rekeyed, root].map(\.certificate)))
    }

    @Test func aMissingIssuerLeavesNoPath() {
        let (root, intermediate, leaf) = PKI.chain()
        #expect(search(leaf, [], anchors: [root]) == SoleNamePath.none)
        #expect(search(leaf, [intermediate], anchors: [PKI.root("Another Root")]) == SoleNamePath.none)
    }

    @Test func twoPathsAreLeftToThePathBuilder() {
        let oldRoot = PKI.root("Old Root")
        let newRoot = PKI.root("New Root")
        let key = TestKey.p256()
        let viaOld = oldRoot.intermediate("Shared CA", key: key)
        let viaNew = newRoot.intermediate("Shared CA", key: key)
        let leaf = viaNew.leaf()
        #expect(search(leaf, [viaNew], anchors: [oldRoot, newRoot]) == .found([leaf, viaNew, newRoot].map(\.certificate)))
        #expect(search(leaf, [viaOld, viaNew], anchors: [oldRoot, newRoot]) == .several)
        // Two anchors of one name are two paths as well.
        let twin = PKI.root("New Root")
        #expect(search(leaf, [viaNew], anchors: [newRoot, twin]) == .several)
    }

    @Test func aLeafThatIsAnAnchorIsItsOwnPath() {
        let selfSigned = PKI.issue(subject: PKI.name("www.example.com"), key: .p256(), issuer: nil, extensions: [])
        #expect(search(selfSigned, [], anchors: [selfSigned]) == .found([selfSigned.certificate]))
        // Also chaining to another anchor of its name: two paths.
        let sameName = PKI.issue(subject: PKI.name("www.example.com"), key: .p256(), issuer: nil, extensions: [])
        #expect(search(selfSigned, [], anchors: [selfSigned, sameName]) == .several)
    }

    /// Self-issued CAs of one name and many keys, none reaching an anchor: every ordering of them is a partial path,
    /// so the search stops at its limit instead of making them all.
    @Test func manyCertificatesOfOneNameEndTheSearch() {
        let root = PKI.root()
        let first = root.intermediate("Loop CA")
        var pool = [first]
        for _ in 0..<12 { pool.append(PKI.issue(subject: PKI.name("Loop CA"), key: .p256(), issuer: pool[pool.count - 1], extensions: [])) }
        let leaf = pool[pool.count - 1].leaf()
        #expect(search(leaf, Array(pool.dropFirst()), anchors: [PKI.root("Unrelated Root")]) == .searchTooLarge)
        // With few enough, the search ends by itself and finds nothing.
        #expect(search(leaf, Array(pool.suffix(3)), anchors: [PKI.root("Unrelated Root")]) == SoleNamePath.none)
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
        #expect(search(leaf, pool, anchors: [root]) != SoleNamePath.none)
        #expect(search(leaf, pool, anchors: [root]).certificates == nil)
        #expect(search(leaf, pool.filter { $0.certificate.issuer != PKI.name("Test Root CA") }, anchors: [PKI.root("Other Root")]) == .searchTooLarge)
    }
}
