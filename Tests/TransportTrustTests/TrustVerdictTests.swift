import TestSupport
import Foundation
import Testing

@testable import TransportTrust

@Suite struct TrustVerdictTests {
    let pki = PKI.chain()

    /// A refused chain counts only as far as each certificate is signed by the next.
    @Test func theSignedChainStopsAtTheFirstLinkByNameOnly() {
        let impostor = pki.root.intermediate("Test Intermediate CA")
        let forged = impostor.leaf()
        let failure = TrustFailure(.hostnameMismatch, certificate: 0, "x")
        let named = TrustVerdict(anchor: .custom, chain: [forged.input, pki.intermediate.input, pki.root.input], failures: [failure])
        #expect(named.signedChain.map(\.der) == [forged.der])
        let signed = TrustVerdict(anchor: .custom, chain: [pki.leaf.input, pki.intermediate.input, pki.root.input], failures: [failure])
        #expect(signed.signedChain.map(\.der) == [pki.leaf.der, pki.intermediate.der, pki.root.der])
        // A trusted verdict's chain was verified by the engine: kept whole, nothing checked again.
        let trusted = TrustVerdict(anchor: .custom, chain: [pki.leaf.input, pki.intermediate.input, pki.root.input], failures: [])
        #expect(trusted.signedChain.count == 3)
        #expect(TrustVerdict.signedPrefix(of: []).isEmpty)
        #expect(TrustVerdict.signedPrefix(of: [forged.input]).map(\.der) == [forged.der])
    }

    @Test func acceptingInvalidKeepsTheSignedPartAndSaysWhereItStops() {
        let impostor = pki.root.intermediate("Test Intermediate CA")
        let forged = impostor.leaf()
        let failure = TrustFailure(.hostnameMismatch, certificate: 0, "wrong name")
        let named = TrustVerdict(anchor: .custom, chain: [forged.input, pki.intermediate.input, pki.root.input], failures: [failure], notes: ["n"])
        let accepted = named.acceptingInvalid("ignored")
        #expect(accepted.isTrusted)
        #expect(accepted.anchor == nil, "the chain no longer reaches the anchor")
        #expect(accepted.chainDER == [forged.der])
        #expect(accepted.notes.first == "n")
        #expect(accepted.notes.contains("ignored: \(failure)"))
        #expect(accepted.notes.last?.contains("the key of \(pki.intermediate.label) did not sign it") == true, "\(accepted.notes)")

        let signed = TrustVerdict(anchor: .custom, chain: [pki.leaf.input, pki.intermediate.input, pki.root.input], failures: [failure])
        let kept = signed.acceptingInvalid("ignored")
        #expect(kept.anchor == .custom)
        #expect(kept.chain.count == 3)
        #expect(!kept.notes.contains { $0.contains("did not sign") })
        #expect(TrustVerdict.refused(failure).acceptingInvalid("ignored").isTrusted == false)
    }
}
