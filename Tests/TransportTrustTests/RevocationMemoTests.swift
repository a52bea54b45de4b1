import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

/// What one evaluation remembers of revocation, and what it may not carry from one candidate path to another.
@Suite struct RevocationMemoTests {
    /// A CRL signer that Root A certified may decide the leaf's status on the path to Root A, not on a path to Root B
    /// through a cross-signed copy of the same CA: keyed by certificate and issuer alone, the status from path A
    /// answered for path B, and a leaf its real CA revoked was trusted there (review-rev F1).
    @Test func aStatusFromOnePathIsNotReusedOnAPathWithOtherCAsAbove() async throws {
        let rootA = PKI.root("Root A"), rootB = PKI.root("Root B")
        let upperKey = TestKey.p256()
        let upperA = rootA.intermediate("Upper CA", key: upperKey), upperB = rootB.intermediate("Upper CA", key: upperKey)
        let mid = upperA.intermediate("Mid CA")
        let leaf = mid.leaf()
        let signer = PKI.issue(subject: mid.subject, key: .p256(), issuer: rootA,
                               extensions: [try Certificate.Extension(KeyUsage(cRLSign: true), critical: true)])
        func crl(_ issuer: TestCert, number: [UInt8], signer key: TestKey? = nil, revoking: TestCert? = nil) throws -> CertificateRevocationList {
            var builder = CRLBuilder(issuer: issuer)
            builder.number = number
            if let revoking { builder.entries = [.revoking(revoking, reason: 1)] }
            return try CertificateRevocationList(bytes: try builder.signed(by: key ?? issuer.key))
        }
        let crls = [try crl(mid, number: [5], revoking: leaf), try crl(mid, number: [99], signer: signer.key),
                    try crl(rootA, number: [1]), try crl(rootB, number: [1])]
        let memo = RevocationMemo()
        memo.signerCandidates = [signer.certificate]
        let check = RevocationCheck(options: RevocationOptions(mode: .soft, crls: crls), memo: memo)
        func chain(_ certificates: [TestCert]) throws -> UnverifiedCertificateChain {
            try #require(UnverifiedCertificateChain.assembled(certificates.map(\.certificate)))
        }
        // Through Root A the signer is vouched for, and its empty CRL, the later one, lifts the listing.
        let pathA = await check.check(try chain([leaf, mid, upperA, rootA]), validationTime: PKI.now)
        #expect(pathA.failures.isEmpty, "\(pathA.failures)")
        // Through Root B nothing vouches for the signer: the real CRL decides.
        let pathB = await check.check(try chain([leaf, mid, upperB, rootB]), validationTime: PKI.now)
        #expect(pathB.failures.map(\.code) == [.revoked], "\(pathB.failures)")
        // The same path again is answered from memory, with the same answer.
        #expect(await check.check(try chain([leaf, mid, upperB, rootB]), validationTime: PKI.now).failures.map(\.code) == [.revoked])
    }
}
