import TestSupport
import Crypto
import Foundation
import Testing
import X509

@testable import TransportTrust

/// Apple's root store as shipped in the package's resources, and real chains evaluated against it.
@Suite struct AppleTrustStoreTests {
    static let fixtures = Repository.appleChains

    struct Chain: Decodable {
        let file: String
        let example_check_time: String
        let anchor_sha256: String
    }

    static let chains: [Chain] = {
        guard let data = try? Data(contentsOf: fixtures.appendingPathComponent("chains.json")),
              let chains = try? JSONDecoder().decode([Chain].self, from: data) else { return [] }
        return chains
    }()

    @Test func theStoreLoads156RootsWithItsVersionAndConstraints() throws {
        let store = AppleTrustStore.shared
        #expect(store.version == 2025072000)
        #expect(store.roots.certificates.count == 156)
        #expect(store.roots.certificates.allSatisfy { $0.certificate != nil }, "every root is usable")
        #expect(store.roots.skipped == [])
        #expect(store.platforms.hasPrefix("iOS 26"))
        #expect(store.source.contains("security_certificates-55349.0.11"))
        #expect(store.constraints.tlsServerDisallowed.count == 9)
        #expect(store.constraints.tlsServerDisallowed.values.allSatisfy { $0.name.hasPrefix("Apple Platform ") })
        #expect(!store.constraints.tlsServerDisallowed.values.contains { $0.name.contains("TLS") }, "the two TLS roots allow SSL server")
        #expect(store.constraints.distrusted.values.map(\.count).reduce(0, +) == 9)
        // The blocked list holds 10 certificates; those swift-certificates cannot parse can never be in a path.
        #expect((1...10).contains(store.constraints.blocked.count))
        #expect(SystemRoots.apple.certificates.count == 156)
        #expect(TrustAnchors.apple.trustStore == .apple)
        #expect(TrustAnchors.apple.all.count == 156)
    }

    @Test func withoutItsResourcesTheStoreHasNoRootAndSaysWhy() throws {
        let dir = try TemporaryDirectory()
        let missing = AppleTrustStore.load(from: dir.url)
        #expect(missing.roots.certificates.isEmpty)
        #expect(missing.roots.emptyReason?.contains("store.json cannot be read") == true, "\(missing.roots.emptyReason ?? "")")
        #expect(AppleTrustStore.load(from: nil).roots.emptyReason?.contains("installed without its resource bundle") == true)
    }

    /// A store whose PEM lost a root is not used at all: its constraints might name the one missing.
    @Test func aStoreThatDoesNotMatchItsMetadataIsRefused() throws {
        let dir = try TemporaryDirectory()
        let real = try #require(AppleTrustStore.resourceDirectory)
        try FileManager.default.copyItem(at: real.appendingPathComponent("store.json"), to: dir.url.appendingPathComponent("store.json"))
        try FileManager.default.copyItem(at: real.appendingPathComponent("blocked.pem"), to: dir.url.appendingPathComponent("blocked.pem"))
        let pem = try String(contentsOf: real.appendingPathComponent("roots.pem"), encoding: .utf8)
        let firstEnd = try #require(pem.range(of: "-----END CERTIFICATE-----\n"))
        try String(pem[firstEnd.upperBound...]).write(to: dir.url.appendingPathComponent("roots.pem"), atomically: true, encoding: .utf8)
        let store = AppleTrustStore.load(from: dir.url)
        #expect(store.roots.certificates.isEmpty)
        #expect(store.roots.emptyReason?.contains("roots.pem holds 155 usable roots, not the 156 of store 2025072000") == true, "\(store.roots.emptyReason ?? "")")
    }

    static func hex(_ digest: SHA256.Digest) -> String { digest.map { String(format: "%02x", $0) }.joined() }

    @Test(arguments: chains.map(\.file))
    func aRealChainIsTrustedAtItsCheckTime(file: String) async throws {
        let chain = try #require(Self.chains.first { $0.file == file })
        let certificates = try CertificateLoader.certificates(atPath: Self.fixtures.appendingPathComponent(file).path)
        // The host is the name after the CA's part of the file name: letsencrypt_e8_news.ycombinator.com.pem → news.ycombinator.com.
        let host = String(file.dropLast(4).split(separator: "_").last ?? "")
        let time = try #require(RFC3339.parse(chain.example_check_time))
        let verdict = await TrustEngine(cacheCapacity: 0).evaluate(ServerTrust(chain: certificates, anchors: .apple, policy: .ssl(host: try PeerName(host)),
                                                                               validationTime: time))
        #expect(verdict.isTrusted, "\(file) for \(host): \(verdict.failures)")
        #expect(verdict.anchor == .system)
        // The anchor is a root of Apple's store: the one chains.json names, or a root the cross-sign leads to directly
        // (GTS Root R1 and Sectigo's E46 are roots too, and the shorter path wins).
        let anchor = try #require(verdict.chain.last)
        #expect(AppleTrustStore.shared.roots.certificates.contains { $0.der == anchor.der })
        #expect(AppleTrustStore.shared.roots.certificates.contains { Self.hex(SHA256.hash(data: $0.der)) == chain.anchor_sha256 })
    }
}
