import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

/// `anchorsOnly` with SecTrustSetAnchorCertificatesOnly semantics, and whether trust came from a system root or a
/// custom anchor. The "system" roots here are a generated bundle loaded through ``SystemRoots``.
@Suite struct TrustAnchorsTests {
    let systemRoot = PKI.root("Generated System Root")
    let customRoot = PKI.root("Custom Root")
    let dir = try! TemporaryDirectory()

    func systemRoots() throws -> SystemRoots {
        let bundle = try dir.write("bundle.pem", systemRoot.pem + PKI.root("Another System Root").pem)
        let roots = SystemRoots.load(files: [bundle], directories: [])
        #expect(roots.certificates.count == 2)
        return roots
    }

    func verdict(_ anchors: TrustAnchors, under root: TestCert) async -> (TrustVerdict, TestCert) {
        let intermediate = root.intermediate("CA under \(root.subject)")
        let leaf = intermediate.leaf()
        let trust = ServerTrust(chain: [leaf.input, intermediate.input], anchors: anchors, policy: PKI.ssl("www.example.com"), validationTime: PKI.now)
        return (await PKI.evaluate(trust), intermediate)
    }

    @Test func customAnchorsAreAnchorsOnlyByDefault() throws {
        let anchors = TrustAnchors(custom: [customRoot.input], systemRoots: try systemRoots())
        #expect(anchors.anchorsOnly)
        #expect(anchors.all == [customRoot.input])
    }

    @Test func anchorsOnlyRefusesASystemRoot() async throws {
        let anchors = TrustAnchors(custom: [customRoot.input], anchorsOnly: true, systemRoots: try systemRoots())
        let (v, intermediate) = await verdict(anchors, under: systemRoot)
        #expect(!v.isTrusted)
        #expect(v.codes == [.unknownIssuer])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message.contains("'\(systemRoot.subject)'"))
        #expect(v.failures[0].message.contains("the given anchors"))
        #expect(!v.failures[0].message.contains("system roots"))
        #expect(v.chainDER == [v.chain[0].der, intermediate.der])

        let (custom, _) = await verdict(anchors, under: customRoot)
        #expect(custom.isTrusted)
        #expect(custom.anchor == .custom)
    }

    @Test func withoutAnchorsOnlyTheSystemRootsAreAddedAndReportedAsSystem() async throws {
        let anchors = TrustAnchors(custom: [customRoot.input], anchorsOnly: false, systemRoots: try systemRoots())
        #expect(anchors.all.count == 3)
        let (system, _) = await verdict(anchors, under: systemRoot)
        #expect(system.isTrusted, "\(system.failures)")
        #expect(system.anchor == .system)
        #expect(system.chain.last?.der == systemRoot.der)

        let (custom, _) = await verdict(anchors, under: customRoot)
        #expect(custom.isTrusted)
        #expect(custom.anchor == .custom)

        let (neither, _) = await verdict(anchors, under: PKI.root("Stranger Root"))
        #expect(neither.codes == [.unknownIssuer])
        #expect(neither.failures[0].message.contains("the given anchors or the system roots"), "\(neither.failures[0].message)")
    }

    @Test func systemRootsAloneAreReportedAsSystem() async throws {
        let anchors = TrustAnchors(custom: [], anchorsOnly: false, systemRoots: try systemRoots())
        let (v, _) = await verdict(anchors, under: systemRoot)
        #expect(v.isTrusted)
        #expect(v.anchor == .system)
        let (stranger, _) = await verdict(anchors, under: customRoot)
        #expect(stranger.failures.first?.message.contains("the system roots") == true)
    }

    @Test func aRootThatIsBothCustomAndSystemCountsAsCustom() async throws {
        let anchors = TrustAnchors(custom: [systemRoot.input], anchorsOnly: false, systemRoots: try systemRoots())
        let (v, _) = await verdict(anchors, under: systemRoot)
        #expect(v.isTrusted)
        #expect(v.anchor == .custom)
    }

    @Test func anchorSetsAreDistinguished() throws {
        let roots = try systemRoots()
        let a = TrustAnchors(custom: [customRoot.input], anchorsOnly: true, systemRoots: roots)
        let b = TrustAnchors(custom: [customRoot.input], anchorsOnly: false, systemRoots: roots)
        let c = TrustAnchors(custom: [systemRoot.input], anchorsOnly: true, systemRoots: roots)
        let a2 = TrustAnchors(custom: [customRoot.input], anchorsOnly: true, systemRoots: roots)
        #expect(a.identity != b.identity)
        #expect(a.identity != c.identity)
        #expect(a.identity == a2.identity)
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func reportsAnchorsItCannotUse() async throws {
        let tool = try OpenSSLTool()
        try tool.run(["req", "-x509", "-newkey", "rsa:1024", "-nodes", "-keyout", "weak.key", "-out", "weak.pem", "-days", "30",
                      "-subj", "/CN=Weak Anchor", "-addext", "basicConstraints=critical,CA:TRUE"])
        let weak = try tool.load("weak")
        let anchors = TrustAnchors(custom: [weak, customRoot.input])
        #expect(anchors.unusable.count == 1)
        #expect(anchors.unusable.first?.contains("CN=Weak Anchor") == true)
        let (v, _) = await verdict(anchors, under: customRoot)
        #expect(v.isTrusted)
    }
}
