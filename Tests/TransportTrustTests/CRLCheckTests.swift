import Foundation
import SwiftASN1
import TestSupport
import Testing
import X509

@testable import TransportTrust

/// RFC 5280 §6.3 on one certificate: each step that can rule a CRL out, and each way a CRL decides.
@Suite struct CRLCheckTests {
    let pki = PKI.chain()

    func crl(_ configure: (inout CRLBuilder) -> Void = { _ in }, signer: TestKey? = nil, issuer: TestCert? = nil) throws -> CertificateRevocationList {
        var builder = CRLBuilder(issuer: issuer ?? pki.intermediate)
        configure(&builder)
        return try CertificateRevocationList(bytes: try builder.signed(by: signer ?? (issuer ?? pki.intermediate).key))
    }

    func status(_ crls: [CertificateRevocationList], certificate: TestCert? = nil, issuer: TestCert? = nil,
                candidates: [TestCert] = [], at time: Date = PKI.now) -> CRLCheck.Status {
        let certificate = (certificate ?? pki.leaf).certificate, issuer = (issuer ?? pki.intermediate).certificate
        return CRLCheck(crls: crls, validationTime: time, path: [certificate, issuer], candidates: candidates.map(\.certificate),
                        anchors: [pki.root.certificate]).status(of: certificate, issuer: issuer)
    }

    func reasons(_ status: CRLCheck.Status) -> String {
        if case .undetermined(let why) = status { return why.joined(separator: "; ") }
        return "not undetermined: \(status)"
    }

    @Test func aCertificateNotListedIsNotRevoked() throws {
        #expect(status([try crl { $0.entries = [CRLBuilder.Entry(serial: [0x01, 0x02])] }]) == .notRevoked)
    }

    @Test func aListedCertificateIsRevokedWithItsReason() throws {
        let s = status([try crl { $0.entries = [.revoking(pki.leaf, reason: 1)] }])
        guard case .revoked(let reason) = s else { Issue.record("\(s)"); return }
        #expect(reason.contains("keyCompromise"))
        #expect(reason.contains(pki.intermediate.label))
    }

    /// RFC 5280 §7.1: a CRL whose issuer name differs from the certificate's issuer only in case or string type is
    /// that issuer's CRL, so its entries revoke the certificate too. Found writing the `crl` fuzz target's invariant:
    /// the entries were matched byte for byte, so such a CRL applied and revoked nothing (fail-open).
    @Test func anEntryRevokesWhenTheCRLSpellsTheIssuerNameOtherwise() throws {
        let respelled = PKI.name("TEST INTERMEDIATE CA", organization: "transport  trust tests")
        #expect(respelled != pki.intermediate.subject)
        let list = try crl { $0.issuer = respelled; $0.entries = [.revoking(pki.leaf, reason: 1)] }
        guard case .revoked(let reason) = status([list]) else { Issue.record("\(status([list]))"); return }
        #expect(reason.contains("keyCompromise"))
    }

    @Test func certificateHoldRevokesAndRemoveFromCRLInACompleteCRLDoesNot() throws {
        guard case .revoked(let why) = status([try crl { $0.entries = [.revoking(pki.leaf, reason: 6)] }]) else { Issue.record("hold"); return }
        #expect(why.contains("certificateHold"))
        #expect(status([try crl { $0.entries = [.revoking(pki.leaf, reason: 8)] }]) == .notRevoked)
    }

    @Test func noCRLOfTheIssuerDecidesNothing() throws {
        let other = PKI.root("Other CA")
        #expect(status([try crl({ $0.entries = [.revoking(pki.leaf)] }, issuer: other)]) == .undetermined([]))
    }

    @Test func anOutOfDateOrFutureCRLIsNotUsed() throws {
        let old = try crl { $0.thisUpdate = PKI.now.addingTimeInterval(-7 * 86400); $0.nextUpdate = PKI.now.addingTimeInterval(-86400) }
        #expect(reasons(status([old])).contains("out of date"))
        let future = try crl { $0.thisUpdate = PKI.now.addingTimeInterval(3600) }
        #expect(reasons(status([future])).contains("not yet valid"))
    }

    /// RFC 5280 §5.1.2.5 requires nextUpdate; without it a CRL would be current for ever, and a years-old one would hide
    /// every later revocation (review-5280 F5).
    @Test func aCRLWithoutNextUpdateIsNotUsed() throws {
        let ancient = try crl { $0.thisUpdate = PKI.now.addingTimeInterval(-400 * 86400); $0.nextUpdate = nil }
        #expect(reasons(status([ancient])).contains("it has no nextUpdate, which RFC 5280 §5.1.2.5 requires"), "\(status([ancient]))")
        let listing = try crl { $0.number = [2]; $0.entries = [.revoking(pki.leaf, reason: 1)] }
        for order in [[ancient, listing], [listing, ancient]] {
            guard case .revoked = status(order) else { Issue.record("\(status(order))"); continue }
        }
    }

    /// Every current CRL is read: an older one that does not list the certificate does not hide a newer one that does,
    /// whatever the order they come in (review-5280 F2).
    @Test func anOlderCRLDoesNotHideANewerOneThatRevokes() throws {
        let older = try crl { $0.number = [5]; $0.thisUpdate = PKI.now.addingTimeInterval(-3 * 86400); $0.nextUpdate = PKI.now.addingTimeInterval(7 * 86400) }
        let newer = try crl { $0.number = [6]; $0.entries = [.revoking(pki.leaf, reason: 1)] }
        for order in [[older, newer], [newer, older]] {
            guard case .revoked(let why) = status(order) else { Issue.record("\(status(order))"); continue }
            #expect(why.contains("keyCompromise"))
        }
        // A newer CRL of the same issuer and scope lifts an older one's hold; a forged newer one lifts nothing.
        let held = try crl { $0.number = [5]; $0.entries = [.revoking(pki.leaf, reason: 6)] }
        let lifted = try crl { $0.number = [6] }
        #expect(status([held, lifted]) == .notRevoked)
        #expect(status([lifted, held]) == .notRevoked)
        let forged = try crl({ $0.number = [7] }, signer: .p256())
        guard case .revoked = status([forged, held]) else { Issue.record("\(status([forged, held]))"); return }
        // An older number does not lift a newer listing.
        guard case .revoked = status([try crl { $0.number = [4] }, held]) else { Issue.record("older lifted"); return }
    }

    @Test func aCRLSignedByAnotherKeyIsNotUsedEvenWhenItListsTheCertificate() throws {
        let forged = try crl({ $0.entries = [.revoking(pki.leaf)] }, signer: .p256())
        #expect(reasons(status([forged])).contains("not signed by"))
    }

    @Test func anIssuerWithoutCRLSignCannotSignCRLs() throws {
        let issuer = pki.root.intermediate("No cRLSign CA", keyUsage: KeyUsage(keyCertSign: true))
        let leaf = issuer.leaf()
        let list = try crl({ _ in }, issuer: issuer)
        #expect(reasons(status([list], certificate: leaf, issuer: issuer)).contains("cRLSign"))
    }

    @Test func anUnknownCriticalExtensionIsRefusedWithTheReason() throws {
        let list = try crl { $0.extensions = [Certificate.Extension(oid: [1, 2, 3, 4], critical: true, value: [0x05, 0x00])] }
        #expect(reasons(status([list])).contains("1.2.3.4"))
    }

    @Test func onlyContainsCACertsOrUserCertsScopesTheCRL() throws {
        let caOnly = try crl { $0.issuingDistributionPoint = CRLBuilder.issuingDistributionPoint(onlyCA: true); $0.entries = [.revoking(pki.leaf)] }
        #expect(status([caOnly]) == .undetermined([]), "a CA-only CRL says nothing about a leaf")
        let userOnly = try crl { $0.issuingDistributionPoint = CRLBuilder.issuingDistributionPoint(onlyUser: true); $0.entries = [.revoking(pki.leaf)] }
        guard case .revoked = status([userOnly]) else { Issue.record("user-only"); return }
        let sub = pki.intermediate.intermediate("Sub CA")
        #expect(status([try crl { $0.issuingDistributionPoint = CRLBuilder.issuingDistributionPoint(onlyUser: true) }], certificate: sub) == .undetermined([]))
    }

    @Test func onlySomeReasonsNeedsCRLsThatCoverEveryReason() throws {
        let compromise = try crl { $0.issuingDistributionPoint = CRLBuilder.issuingDistributionPoint(onlySomeReasons: [1, 2]) }
        #expect(reasons(status([compromise])).contains("only some revocation reasons"))
        let others = try crl { $0.issuingDistributionPoint = CRLBuilder.issuingDistributionPoint(onlySomeReasons: [3, 4, 5, 6, 7, 8]) }
        #expect(status([compromise, others]) == .notRevoked)
    }

    @Test func theDistributionPointNameMustMatchTheCRLsScope() throws {
        let dp = CRLBuilder.distributionPoints(["http://crl.example/a.crl"])
        let leaf = pki.intermediate.leaf(extra: [dp])
        let a = try crl { $0.issuingDistributionPoint = CRLBuilder.issuingDistributionPoint(uris: ["http://crl.example/a.crl"]) }
        let b = try crl { $0.issuingDistributionPoint = CRLBuilder.issuingDistributionPoint(uris: ["http://crl.example/b.crl"]) }
        #expect(status([a], certificate: leaf) == .notRevoked)
        #expect(status([b], certificate: leaf) == .undetermined([]))
        // A CRL without an issuingDistributionPoint covers every point of its issuer.
        #expect(status([try crl()], certificate: leaf) == .notRevoked)
    }

    @Test func aDeltaCRLRevokesAndRemovesOnTopOfItsBase() throws {
        let base = try crl { $0.number = [5]; $0.entries = [.revoking(pki.leaf, reason: 6)] }
        let removing = try crl { $0.number = [6]; $0.deltaBase = [5]; $0.entries = [.revoking(pki.leaf, reason: 8)] }
        #expect(status([base, removing]) == .notRevoked, "removeFromCRL in a delta lifts the hold")
        let clean = try crl { $0.number = [5] }
        let revoking = try crl { $0.number = [6]; $0.deltaBase = [5]; $0.entries = [.revoking(pki.leaf, reason: 1)] }
        guard case .revoked(let why) = status([clean, revoking]) else { Issue.record("delta"); return }
        #expect(why.contains("delta CRL"))
        // A delta for a later base does not apply, and it shows the complete CRL is replaced: nothing is decided.
        // A delta alone decides nothing either.
        let later = try crl { $0.number = [9]; $0.deltaBase = [8]; $0.entries = [.revoking(pki.leaf, reason: 1)] }
        #expect(reasons(status([clean, later])).contains("builds on number 8"))
        #expect(status([revoking]) == .undetermined([]))
    }

    /// Deltas are cumulative: the highest-numbered one of a base decides, whatever the order they come in; an older
    /// removeFromCRL does not undo a later listing (review-rev F2).
    @Test func theLatestDeltaDecidesInAnyOrder() throws {
        let base = try crl { $0.number = [10]; $0.entries = [.revoking(pki.leaf, reason: 6)] }
        let lifted = try crl { $0.number = [11]; $0.deltaBase = [10]; $0.entries = [.revoking(pki.leaf, reason: 8)] }
        let compromised = try crl { $0.number = [12]; $0.deltaBase = [10]; $0.entries = [.revoking(pki.leaf, reason: 1)] }
        for order in [[base, lifted, compromised], [base, compromised, lifted]] {
            guard case .revoked(let why) = status(order) else { Issue.record("\(status(order))"); continue }
            #expect(why.contains("keyCompromise") && why.contains("delta CRL"), "\(why)")
        }
        let relisted = try crl { $0.number = [13]; $0.deltaBase = [10] }  // neither listed nor removed since the base
        #expect(status([base, compromised, relisted, lifted]) != .notRevoked, "the base's hold stands")
        #expect(status([base, relisted, compromised]) == status([base, compromised, relisted]))
    }

    /// A current delta built on a later complete CRL is signed proof that the complete CRL at hand is replaced: it
    /// decides nothing, and the status stays open (review-rev F6).
    @Test func aDeltaOnALaterBaseMakesTheCompleteCRLStale() throws {
        let old = try crl { $0.number = [10] }
        let later = try crl { $0.number = [21]; $0.deltaBase = [20]; $0.entries = [.revoking(pki.leaf, reason: 1)] }
        let s = status([old, later])
        #expect(reasons(s).contains("is number 10, but a current delta CRL builds on number 20"), "\(s)")
        // A delta on a later base that is itself forged or out of date proves nothing.
        let forged = try crl({ $0.number = [21]; $0.deltaBase = [20] }, signer: .p256())
        #expect(status([old, forged]) == .notRevoked)
        let stale = try crl { $0.number = [21]; $0.deltaBase = [20]; $0.thisUpdate = PKI.now.addingTimeInterval(-7 * 86400); $0.nextUpdate = PKI.now.addingTimeInterval(-86400) }
        #expect(status([old, stale]) == .notRevoked)
    }

    @Test func anIndirectCRLListsCertificatesUnderTheirIssuer() throws {
        let crlIssuer = pki.root.intermediate("CRL Issuer")
        let dp = CRLBuilder.distributionPoints([], crlIssuer: crlIssuer.subject)
        let leaf = pki.intermediate.leaf(extra: [dp])
        let indirect = CRLBuilder.issuingDistributionPoint(indirect: true)
        let listsLeaf = try crl({ b in
            b.issuingDistributionPoint = indirect
            b.entries = [CRLBuilder.Entry(serial: [0x11]), .revoking(leaf, extensions: [CRLBuilder.certificateIssuer(pki.intermediate.subject)])]
        }, issuer: crlIssuer)
        // The CRL issuer is checked too, against the root's CRL.
        let rootCRL = try crl({ _ in }, issuer: pki.root)
        let withoutRootCRL = status([listsLeaf], certificate: leaf, candidates: [crlIssuer])
        #expect(reasons(withoutRootCRL).contains("the revocation status of the CRL signer"), "\(withoutRootCRL)")
        guard case .revoked = status([listsLeaf, rootCRL], certificate: leaf, candidates: [crlIssuer]) else { Issue.record("indirect"); return }
        // The same serial under the CRL issuer's own name is about another certificate.
        let ownName = try crl({ b in b.issuingDistributionPoint = indirect; b.entries = [.revoking(leaf)] }, issuer: crlIssuer)
        #expect(status([ownName, rootCRL], certificate: leaf, candidates: [crlIssuer]) == .notRevoked)
        // Without indirectCRL the CRL issuer's CRL is not about the leaf at all.
        let direct = try crl({ b in b.entries = [.revoking(leaf)] }, issuer: crlIssuer)
        #expect(status([direct, rootCRL], certificate: leaf, candidates: [crlIssuer]) == .undetermined([]))
    }

    @Test func aSeparateCRLSignerMustNotBeRevokedItself() throws {
        // The CA signs certificates with one key and CRLs with another, both certified by the root (PKITS 4.4.19–4.4.20).
        let signer = PKI.issue(subject: pki.intermediate.subject, key: .p256(), issuer: pki.root,
                               extensions: [try Certificate.Extension(KeyUsage(cRLSign: true), critical: true)])
        let list = try crl({ _ in }, signer: signer.key)
        let rootCRL = try crl({ _ in }, issuer: pki.root)
        #expect(status([list, rootCRL], candidates: [signer]) == .notRevoked)
        let revokedSigner = try crl({ $0.entries = [.revoking(signer)] }, issuer: pki.root)
        #expect(reasons(status([list, revokedSigner], candidates: [signer])).contains("is revoked"))
    }

    @Test func aSignerThePeerVouchesForItselfSignsNothing() throws {
        // A forged CRL that omits the revoked leaf, signed by a self-signed certificate with the CA's name that the peer
        // sent along (a man in the middle on the CRL's plain-http fetch could serve both).
        let forger = PKI.issue(subject: pki.intermediate.subject, key: .p256(), issuer: nil,
                               extensions: [try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true)])
        let forged = try crl({ _ in }, signer: forger.key)
        let forgedAboutItself = try crl({ _ in }, signer: forger.key)
        let s = status([forged, forgedAboutItself, try crl({ _ in }, issuer: pki.root)], candidates: [forger])
        #expect(reasons(s).contains("does not chain to the path"), "\(s)")
    }

    /// The holder of the revoked leaf's key certifies a signer in the CA's name and sends it along, then signs an
    /// empty CRL "from the CA" with it. The leaf is on the path but issues nothing above itself (review-5280 F3).
    @Test func aSignerTheCheckedCertificateIssuedSignsNothing() throws {
        let dp = CRLBuilder.distributionPoints([], crlIssuer: pki.intermediate.subject)
        let leaf = pki.intermediate.leaf(extra: [dp])
        let forger = PKI.issue(subject: pki.intermediate.subject, key: .p256(), issuer: leaf,
                               extensions: [try Certificate.Extension(KeyUsage(cRLSign: true), critical: true), dp])
        let forged = try crl({ $0.issuingDistributionPoint = CRLBuilder.issuingDistributionPoint(indirect: true) }, signer: forger.key)
        let real = try crl { $0.number = [2]; $0.issuingDistributionPoint = CRLBuilder.issuingDistributionPoint(indirect: true); $0.entries = [.revoking(leaf, reason: 1)] }
        let rootCRL = try crl({ _ in }, issuer: pki.root)
        let s = status([forged, rootCRL], certificate: leaf, candidates: [forger])
        #expect(reasons(s).contains("is issued by \(leaf.label), which is neither \(pki.intermediate.label) nor a CA above it on the path"), "\(s)")
        guard case .revoked = status([forged, rootCRL, real], certificate: leaf, candidates: [forger]) else {
            Issue.record("\(status([forged, rootCRL, real], certificate: leaf, candidates: [forger]))"); return
        }
    }
}
