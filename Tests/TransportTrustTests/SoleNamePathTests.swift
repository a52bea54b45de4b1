import TestSupport
import Testing
import X509

@testable import TransportTrust

@Suite struct SoleNamePathTests {
    func search(_ leaf: TestCert, _ intermediates: [TestCert], anchors: [TestCert], limit: Int? = nil) -> SoleNamePath {
        SoleNamePath(leaf: leaf.certificate, intermediates: intermediates.map(\.certificate),
                     anchors: TrustAnchors(custom: anchors.map(\.input)), maximumIntermediates: limit)
    }

    /// `count` CAs, each issued by the one before, the first by `root`; first to last.
    func linked(_ count: Int, under root: TestCert, name: String = "Link CA") -> [TestCert] {
        var chain = [root.intermediate("\(name) 0")]
        for i in 1..<count { chain.append(chain[i - 1].intermediate("\(name) \(i)")) }
        return chain
    }

    /// With a limit, a partial path past it is not followed, so a long linked chain is too long (not a search too large,
    /// and with no anchor in reach, not "none" either); within the limit, the path is found as without one.
    @Test func aLimitStopsPathsPastIt() {
        let root = PKI.root()
        let chain = linked(12, under: root)
        let leaf = chain[11].leaf()
        let path = SoleNamePath.found(([leaf] + chain.reversed() + [root]).map(\.certificate))
        #expect(search(leaf, chain, anchors: [root]) == path)
        #expect(search(leaf, chain, anchors: [root], limit: 12) == path)
        #expect(search(leaf, chain, anchors: [root], limit: 11) == .tooLong)
        #expect(search(leaf, chain, anchors: [root], limit: 0) == .tooLong)
        let unrelated = PKI.root("Unrelated Root")
        #expect(search(leaf, chain, anchors: [unrelated], limit: 4) == .tooLong)
        #expect(search(leaf, chain, anchors: [unrelated]) == SoleNamePath.none)
        #expect(search(leaf, Array(chain.suffix(3)), anchors: [unrelated], limit: 4) == SoleNamePath.none)
    }

    /// Counted as `ChainDepthRule` counts: a self-issued CA (a key rollover under one name) is not an intermediate. By
    /// names the leaf reaches the root through the old CA alone or through both; both stay within a limit of one.
    @Test func selfIssuedCertificatesDoNotCountTowardsTheLimit() {
        let root = PKI.root()
        let ca = root.intermediate("Rolling CA")
        let rolled = ca.intermediate("Rolling CA")
        let leaf = rolled.leaf()
        #expect(search(leaf, [ca, rolled], anchors: [root]) == .several)
        #expect(search(leaf, [ca, rolled], anchors: [root], limit: 1) == .several)
        #expect(search(leaf, [ca, rolled], anchors: [root], limit: 0) == .tooLong)
    }

    /// A short path beside a long one of the same names: two paths without a limit, the short one alone with it, as the
    /// long one can never pass `ChainDepthRule`.
    @Test func aShortPathBesideLongOnesIsTheOneWithinTheLimit() {
        let root = PKI.root()
        let long = linked(10, under: root)
        let key = TestKey.p256()
        let direct = root.intermediate("Issuing CA", key: key)
        let viaLong = long[9].intermediate("Issuing CA", key: key)
        let leaf = direct.leaf()
        let all = [direct, viaLong] + long
        #expect(search(leaf, all, anchors: [root]) == .several)
        #expect(search(leaf, all, anchors: [root], limit: 8) == .found([leaf, direct, root].map(\.certificate)))
        #expect(search(leaf, all, anchors: [root], limit: 11) == .several)
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
