import TestSupport
import Foundation
import Testing

@testable import TransportTrust

/// AFSecurityPolicy's `evaluateServerTrust:forDomain:`, every branch.
@Suite struct AFSecurityPolicyTests {
    /// One row of the branch table.
    struct Row: Sendable, CustomTestStringConvertible {
        enum Server: Sendable { case valid, untrustedRoot, selfSigned }
        enum Pins: Sendable { case none, leaf, intermediate, root, unrelated, selfSigned }
        var name: String
        var mode: AFSecurityPolicy.SSLPinningMode
        var allowInvalid = false
        var validatesDomain = true
        var domain: String? = "www.example.com"
        var server: Server = .valid
        var pins: Pins = .none
        var trusted: Bool
        var code: TrustFailureCode? = nil
        var testDescription: String { name }
    }

    static let table: [Row] = [
        // Step 1: self-signed certificates need pinning to validate a domain name.
        Row(name: "1 allowInvalid+validatesDomain+domain, mode none: refused", mode: .none, allowInvalid: true, server: .selfSigned, trusted: false, code: .policy),
        Row(name: "1 allowInvalid+validatesDomain+domain, certificate mode without pins: refused", mode: .certificate, allowInvalid: true, server: .selfSigned, trusted: false, code: .policy),
        Row(name: "1 allowInvalid+validatesDomain+domain, public-key mode without pins: refused", mode: .publicKey, allowInvalid: true, server: .selfSigned, trusted: false, code: .policy),
        Row(name: "1 no domain: step 1 does not apply, mode none trusts any chain", mode: .none, allowInvalid: true, domain: nil, server: .selfSigned, trusted: true),
        // Steps 2-3, mode none.
        Row(name: "3 mode none, valid chain: trusted", mode: .none, trusted: true),
        Row(name: "3 mode none, untrusted root: refused", mode: .none, server: .untrustedRoot, trusted: false, code: .unknownIssuer),
        Row(name: "3 mode none, allowInvalid without domain validation: trusted", mode: .none, allowInvalid: true, validatesDomain: false, server: .untrustedRoot, trusted: true),
        Row(name: "2 SSL policy with the domain: wrong name refused", mode: .none, domain: "other.example.com", trusted: false, code: .hostnameMismatch),
        Row(name: "2 basic X.509 policy: wrong name trusted", mode: .none, validatesDomain: false, domain: "other.example.com", trusted: true),
        // Step 3, pinning modes: an invalid chain is refused before any pin is looked at.
        Row(name: "3 certificate mode, invalid chain, pinned leaf: refused", mode: .certificate, server: .untrustedRoot, pins: .leaf, trusted: false, code: .unknownIssuer),
        Row(name: "3 public-key mode, invalid chain, pinned leaf key: refused", mode: .publicKey, server: .untrustedRoot, pins: .leaf, trusted: false, code: .unknownIssuer),
        // Step 4: certificate mode.
        Row(name: "4 pinned root the server does not send: trusted", mode: .certificate, pins: .root, trusted: true),
        Row(name: "4 pinned intermediate becomes the only anchor: trusted", mode: .certificate, pins: .intermediate, trusted: true),
        Row(name: "4 pinned leaf becomes the only anchor: trusted", mode: .certificate, pins: .leaf, trusted: true),
        Row(name: "4 unrelated pinned certificate: the chain reaches no pinned anchor, refused", mode: .certificate, pins: .unrelated, trusted: false, code: .unknownIssuer),
        Row(name: "4 allowInvalid, self-signed leaf pinned: trusted", mode: .certificate, allowInvalid: true, server: .selfSigned, pins: .selfSigned, trusted: true),
        Row(name: "4 allowInvalid, self-signed leaf, unrelated pin: refused", mode: .certificate, allowInvalid: true, server: .selfSigned, pins: .unrelated, trusted: false, code: .selfSignedLeaf),
        Row(name: "4 allowInvalid, self-signed pinned, wrong domain: refused", mode: .certificate, allowInvalid: true, domain: "other.example.com", server: .selfSigned, pins: .selfSigned, trusted: false, code: .hostnameMismatch),
        // Step 5: public-key mode.
        Row(name: "5 pinned intermediate key: trusted", mode: .publicKey, pins: .intermediate, trusted: true),
        Row(name: "5 pinned root key (root not sent, but on the built chain): trusted", mode: .publicKey, pins: .root, trusted: true),
        Row(name: "5 unrelated key: refused", mode: .publicKey, pins: .unrelated, trusted: false, code: .pinMismatch),
        Row(name: "5 allowInvalid, self-signed key pinned: trusted", mode: .publicKey, allowInvalid: true, server: .selfSigned, pins: .selfSigned, trusted: true),
        Row(name: "5 allowInvalid, self-signed, unrelated key: refused", mode: .publicKey, allowInvalid: true, server: .selfSigned, pins: .unrelated, trusted: false, code: .pinMismatch),
    ]

    static let pki = PKI.chain()
    static let otherRoot = PKI.root("Other Root")
    static let selfSigned = PinningFixtures.selfSignedLeaf()

    @Test(arguments: table)
    func branch(_ row: Row) async {
        let pki = Self.pki
        let trust: ServerTrust
        switch row.server {
        case .valid: trust = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root])
        case .untrustedRoot: trust = PKI.trust([pki.leaf, pki.intermediate], anchors: [Self.otherRoot])
        case .selfSigned: trust = PKI.trust([Self.selfSigned], anchors: [Self.otherRoot])
        }
        let pinned: [TestCert]
        switch row.pins {
        case .none: pinned = []
        case .leaf: pinned = [pki.leaf]
        case .intermediate: pinned = [pki.intermediate]
        case .root: pinned = [pki.root]
        case .unrelated: pinned = [Self.otherRoot]
        case .selfSigned: pinned = [Self.selfSigned]
        }
        var policy = AFSecurityPolicy(pinningMode: row.mode, pinnedCertificates: pinned.map(\.input), engine: PinningFixtures.engine)
        policy.allowInvalidCertificates = row.allowInvalid
        policy.validatesDomainName = row.validatesDomain
        let verdict = await policy.evaluate(trust, forDomain: row.domain)
        #expect(verdict.isTrusted == row.trusted, "\(verdict.failures)")
        if let code = row.code { #expect(verdict.codes.contains(code), "\(verdict.failures)") }
        #expect(await policy.evaluateServerTrust(trust, forDomain: row.domain) == row.trusted)
    }

    /// allowInvalidCertificates ignores the chain's failures, not its signatures: a leaf forged under the pinned
    /// CA's name is refused, though its chain links by name to that CA (review-pins F1). The real leaf with a wrong
    /// name is accepted, as AFNetworking does.
    @Test func allowInvalidCertificatesNeverLetsAnUnsignedLinkMatchAPin() async {
        let pki = Self.pki
        let impostor = pki.root.intermediate("Test Intermediate CA")
        var policy = AFSecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pki.intermediate.input], engine: PinningFixtures.engine)
        policy.allowInvalidCertificates = true
        let forged = await policy.evaluate(PKI.trust([impostor.leaf(dns: ["other.example.com"]), pki.intermediate], anchors: [pki.root]),
                                           forDomain: "www.example.com")
        #expect(forged.codes.contains(.pinMismatch), "\(forged.failures)")
        #expect(!forged.isTrusted)
        let wrongName = await policy.evaluate(PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root]), forDomain: "other.example.com")
        #expect(wrongName.isTrusted, "\(wrongName.failures)")
        #expect(wrongName.chainDER == [pki.leaf.der, pki.intermediate.der, pki.root.der])
    }

    @Test func stepOneSaysPinningIsRequired() async {
        var policy = AFSecurityPolicy.default
        policy.allowInvalidCertificates = true
        let verdict = await policy.evaluate(PKI.trust([Self.selfSigned], anchors: [Self.otherRoot]), forDomain: "www.example.com")
        #expect(verdict.failures.first?.message.contains("MUST use pinning") == true)
    }

    @Test func defaultsMatchAFNetworking() {
        let policy = AFSecurityPolicy.default
        #expect(policy.pinningMode == .none)
        #expect(!policy.allowInvalidCertificates)
        #expect(policy.validatesDomainName)
    }

    @Test func evaluateWithoutDomainUsesTheTrustsHost() async {
        let policy = AFSecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Self.pki.root.input], engine: PinningFixtures.engine)
        let wrongHost = PKI.trust([Self.pki.leaf, Self.pki.intermediate], anchors: [Self.pki.root], policy: PKI.ssl("other.example.com"))
        #expect(await policy.evaluate(wrongHost).codes.contains(.hostnameMismatch))
    }

    @Test func loadsPinnedCertificatesFromAFolderLikeCertificatesInBundle() throws {
        let dir = try TemporaryDirectory()
        try dir.write("a.cer", bytes: Self.pki.root.der)
        try dir.write("b.pem", Self.pki.intermediate.pem)
        try dir.write("c.crt", Self.pki.leaf.pem)
        try dir.write("d.der", bytes: Self.otherRoot.der)
        try dir.write("notes.txt", "not a certificate")
        let certs = try AFSecurityPolicy.certificates(inDirectory: dir.path)
        #expect(Set(certs.map(\.der)) == Set([Self.pki.root.der, Self.pki.intermediate.der, Self.pki.leaf.der, Self.otherRoot.der]))
        try dir.write("broken.cer", "garbage")
        do { _ = try AFSecurityPolicy.certificates(inDirectory: dir.path); Issue.record("a broken .cer was accepted") } catch {
            #expect(error.source?.hasSuffix("broken.cer") == true)
        }
        #expect(throws: PinConfigurationError.self) { try AFSecurityPolicy.certificates(inDirectory: dir.path + "/missing") }
    }
}
