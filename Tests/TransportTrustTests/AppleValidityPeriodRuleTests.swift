import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

/// Apple's lifetime limits through the whole engine, on chains whose root is public (a bundle loaded as
/// `SSL_CERT_FILE` is) and on the same chains under a custom anchor.
@Suite struct AppleValidityPeriodRuleTests {
    static let day: TimeInterval = 86_400
    /// A leaf issued after every rule date.
    static let recent = date("2025-01-01T00:00:00Z")
    static let rule398 = date("2020-09-01T00:00:00Z")
    static let rule825System = date("2018-03-01T00:00:00Z")
    /// trustd's 583,628,400 CFAbsoluteTime.
    static let rule825Other = date("2019-06-30T23:00:00Z")

    static func date(_ text: String) -> Date { RFC3339.parse(text)! }

    let dir = try! TemporaryDirectory()
    let root = PKI.root("Lifetime Root", notValidBefore: date("2010-01-01T00:00:00Z"), notValidAfter: date("2045-01-01T00:00:00Z"))
    let intermediate: TestCert

    init() {
        intermediate = root.intermediate("Lifetime CA", notValidBefore: Self.date("2010-01-01T00:00:00Z"), notValidAfter: Self.date("2045-01-01T00:00:00Z"))
    }

    /// The root as this machine's store would hold it: read from a bundle file, as `SSL_CERT_FILE` is.
    func publicAnchors() throws -> TrustAnchors {
        let bundle = try dir.write("bundle.pem", root.pem)
        return TrustAnchors(custom: [], anchorsOnly: false, systemRoots: SystemRoots.load(environment: ["SSL_CERT_FILE": bundle]))
    }

    func verdict(lifetime: TimeInterval, from notBefore: Date = recent, publicRoot: Bool, platform: ApplePlatform = .newest) async throws -> TrustVerdict {
        let leaf = intermediate.leaf(notValidBefore: notBefore, notValidAfter: notBefore.addingTimeInterval(lifetime))
        var policy = PKI.ssl("www.example.com")
        policy.platform = platform
        // These leaves embed no SCTs: CT, which applies to public roots too, has its own tests.
        policy.certificateTransparency.mode = .off
        let anchors = publicRoot ? try publicAnchors() : TrustAnchors(custom: [root.input])
        let trust = ServerTrust(certificates: [leaf.der, intermediate.der], anchors: anchors, policy: policy,
                                validationTime: notBefore.addingTimeInterval(3600))
        let verdict = await PKI.evaluate(trust)
        #expect(verdict.anchor == (publicRoot ? .system : .custom))
        return verdict
    }

    static let lifetimes: [(TimeInterval, Bool, Bool)] = [
        // (notAfter − notBefore, trusted under a public root, trusted under a custom anchor)
        (90 * day, true, true), (180 * day, true, true), (181 * day, true, true),
        (398 * day, true, true), (398 * day + 1, false, true), (399 * day, false, true),
        (825 * day, false, true), (825 * day + 3600, false, true), (825 * day + 3601, false, false), (826 * day, false, false),
    ]

    @Test(arguments: lifetimes)
    func lifetimesUnderPublicAndCustomRoots(lifetime: TimeInterval, publicTrusted: Bool, customTrusted: Bool) async throws {
        let publicVerdict = try await verdict(lifetime: lifetime, publicRoot: true)
        #expect(publicVerdict.isTrusted == publicTrusted, "\(lifetime / Self.day) days: \(publicVerdict.failures)")
        if !publicTrusted { #expect(publicVerdict.codes == [.validityPeriodTooLong]) }
        let customVerdict = try await verdict(lifetime: lifetime, publicRoot: false)
        #expect(customVerdict.isTrusted == customTrusted, "\(lifetime / Self.day) days: \(customVerdict.failures)")
        if !customTrusted { #expect(customVerdict.codes == [.validityPeriodTooLong]) }
    }

    /// The same root as a custom anchor, private, and as one the store also holds, public: one engine must not answer
    /// the second from a path it cached under the first, where the 398-day limit did not apply (review-anchor F2).
    @Test func aPathCachedUnderAPrivateAnchorDoesNotAnswerForAPublicOne() async throws {
        let leaf = intermediate.leaf(notValidBefore: Self.recent, notValidAfter: Self.recent.addingTimeInterval(400 * Self.day))
        var policy = PKI.ssl("www.example.com")
        policy.certificateTransparency.mode = .off
        let bundle = try dir.write("bundle.pem", root.pem)
        let store = SystemRoots.load(environment: ["SSL_CERT_FILE": bundle])
        let privateRoot = TrustAnchors(custom: [root.input]), publicRoot = TrustAnchors(custom: [root.input], systemRoots: store)
        #expect(privateRoot.identity != publicRoot.identity)
        let engine = TrustEngine()
        func evaluate(_ anchors: TrustAnchors) async -> TrustVerdict {
            await engine.evaluate(ServerTrust(certificates: [leaf.der, intermediate.der], anchors: anchors, policy: policy,
                                              validationTime: Self.recent.addingTimeInterval(3600)))
        }
        #expect(await evaluate(privateRoot).isTrusted)
        #expect(await evaluate(publicRoot).codes == [.validityPeriodTooLong])
        #expect(await TrustEngine().evaluate(ServerTrust(certificates: [leaf.der, intermediate.der], anchors: publicRoot, policy: policy,
                                                         validationTime: Self.recent.addingTimeInterval(3600))).codes == [.validityPeriodTooLong])
    }

    @Test func theMessageNamesLifetimeLimitDateAndSource() async throws {
        let refused = try await verdict(lifetime: 399 * Self.day, publicRoot: true)
        let failure = try #require(refused.failure(.validityPeriodTooLong))
        #expect(failure.certificate == 0)
        #expect(failure.message.contains("'CN=leaf,O=Transport Trust Tests' is valid for 399 days (2025-01-01T00:00:00Z → 2026-02-04T00:00:00Z)"), "\(failure.message)")
        #expect(failure.message.contains("longer than the 398 days iOS 26 allows; reissue it with at most 398 days"), "\(failure.message)")
        #expect(failure.message.contains("issued from 2020-09-01 on that chain to a public root (support.apple.com/102028)"), "\(failure.message)")

        let custom = try await verdict(lifetime: 826 * Self.day, publicRoot: false)
        let other = try #require(custom.failure(.validityPeriodTooLong))
        #expect(other.message.contains("longer than the 825 days and 1 hour iOS 26 allows; reissue it with at most 825 days"), "\(other.message)")
        #expect(other.message.contains("issued after 2019-07-01 (support.apple.com/103769)"), "\(other.message)")
    }

    /// A public root: no limit before 2018-03-01; 825 days and an hour from it; 398 days from 2020-09-01, to the second.
    @Test func publicRootRuleDates() async throws {
        #expect(try await verdict(lifetime: 3000 * Self.day, from: Self.rule825System.addingTimeInterval(-1), publicRoot: true).isTrusted)
        #expect(try await verdict(lifetime: 825 * Self.day + 3600, from: Self.rule825System, publicRoot: true).isTrusted)
        #expect(try await verdict(lifetime: 825 * Self.day + 3601, from: Self.rule825System, publicRoot: true).codes == [.validityPeriodTooLong])
        #expect(try await verdict(lifetime: 825 * Self.day + 3600, from: Self.rule398.addingTimeInterval(-1), publicRoot: true).isTrusted)
        #expect(try await verdict(lifetime: 398 * Self.day + 1, from: Self.rule398.addingTimeInterval(-1), publicRoot: true).isTrusted)
        #expect(try await verdict(lifetime: 398 * Self.day + 1, from: Self.rule398, publicRoot: true).codes == [.validityPeriodTooLong])
        #expect(try await verdict(lifetime: 398 * Self.day, from: Self.rule398, publicRoot: true).isTrusted)
    }

    /// A custom anchor: 825 days and an hour for leaves issued after 2019-06-30T23:00:00Z (not at it); never 398 days.
    @Test func customAnchorRuleDates() async throws {
        #expect(try await verdict(lifetime: 3000 * Self.day, from: Self.rule825Other, publicRoot: false).isTrusted)
        #expect(try await verdict(lifetime: 826 * Self.day, from: Self.rule825Other.addingTimeInterval(1), publicRoot: false).codes == [.validityPeriodTooLong])
        #expect(try await verdict(lifetime: 825 * Self.day + 3600, from: Self.rule825Other.addingTimeInterval(1), publicRoot: false).isTrusted)
        #expect(try await verdict(lifetime: 800 * Self.day, from: Self.rule398, publicRoot: false).isTrusted)
    }

    @Test func eachPlatformAppliesTheLimitsItShipped() async throws {
        let ios12 = ApplePlatform(.iOS, 12, 4), ios13 = ApplePlatform(.iOS, 13), macOS10_15 = ApplePlatform(.macOS, 10, 15), macOS11 = ApplePlatform(.macOS, 11)
        #expect(try await verdict(lifetime: 1000 * Self.day, publicRoot: true, platform: ios12).isTrusted)
        #expect(try await verdict(lifetime: 1000 * Self.day, publicRoot: false, platform: ios12).isTrusted)
        for platform in [ios13, macOS10_15] {
            #expect(try await verdict(lifetime: 399 * Self.day, publicRoot: true, platform: platform).isTrusted, "\(platform)")
            #expect(try await verdict(lifetime: 826 * Self.day, publicRoot: true, platform: platform).codes == [.validityPeriodTooLong], "\(platform)")
        }
        let refused = try await verdict(lifetime: 399 * Self.day, publicRoot: true, platform: macOS11)
        #expect(refused.codes == [.validityPeriodTooLong])
        #expect(refused.failures.first?.message.contains("macOS 11 allows") == true, "\(refused.failures)")
    }

    /// trustd skips leaves that are themselves user-trusted anchors.
    @Test func aLeafThatIsItsOwnCustomAnchorIsNotLimited() async throws {
        let notBefore = Self.recent
        let leaf = PKI.issue(subject: PKI.name("self"), key: .p256(), issuer: nil, notValidBefore: notBefore,
                             notValidAfter: notBefore.addingTimeInterval(1000 * Self.day), extensions: [
                                try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
                                try Certificate.Extension(try ExtendedKeyUsage([.serverAuth]), critical: false),
                                try Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false),
                             ])
        let trust = ServerTrust(certificates: [leaf.der], anchors: TrustAnchors(custom: [leaf.input]), policy: PKI.ssl("www.example.com"),
                                validationTime: notBefore.addingTimeInterval(3600))
        let verdict = await PKI.evaluate(trust)
        #expect(verdict.isTrusted, "\(verdict.failures)")
    }

    @Test func theBasicPolicyHasNoLimit() async throws {
        let leaf = intermediate.leaf(notValidBefore: Self.recent, notValidAfter: Self.recent.addingTimeInterval(1000 * Self.day))
        let trust = ServerTrust(certificates: [leaf.der, intermediate.der], anchors: try publicAnchors(), policy: .basicX509,
                                validationTime: Self.recent.addingTimeInterval(3600))
        #expect(await PKI.evaluate(trust).isTrusted)
        #expect(!TrustPolicy.basicX509.rules.contains { $0 is AppleValidityPeriodRule })
    }
}
