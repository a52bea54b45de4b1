import TestSupport
import Foundation
import Testing

@testable import TransportTrust

@Suite struct PinSetTests {
    let pki = PKI.chain()
    var built: [CertificateFingerprint] { [pki.leaf, pki.intermediate, pki.root].map { CertificateFingerprint(der: $0.der) } }

    @Test func scopesDecideWhichCertificatesAPinMayMatch() {
        let leafPin = PinningFixtures.sha256Pin(pki.leaf), caPin = PinningFixtures.sha256Pin(pki.intermediate)
        #expect(PinSet([leafPin], scope: .any).check(built).isMatch)
        #expect(PinSet([caPin], scope: .any).check(built).isMatch)
        #expect(PinSet([leafPin], scope: .leaf).check(built).isMatch)
        #expect(!PinSet([leafPin], scope: .ca).check(built).isMatch)
        #expect(PinSet([caPin], scope: .ca).check(built).isMatch)
        #expect(!PinSet([caPin], scope: .leaf).check(built).isMatch)
        #expect(PinSet([PinningFixtures.sha256Pin(pki.root)], scope: .ca).check(built).isMatch)
    }

    @Test func caAndLeafSetsMustBothMatchAsInATS() {
        let leafPin = PinningFixtures.sha256Pin(pki.leaf), caPin = PinningFixtures.sha256Pin(pki.root)
        #expect(PinSet(caPins: [caPin], leafPins: [leafPin]).check(built).isMatch)
        let noLeaf = PinSet(caPins: [caPin], leafPins: [PinningFixtures.unrelated]).check(built)
        #expect(noLeaf.unmatchedScopes == [.leaf])
        let noCA = PinSet(caPins: [PinningFixtures.unrelated], leafPins: [leafPin]).check(built)
        #expect(noCA.unmatchedScopes == [.ca])
    }

    @Test func aBackupPinThatMatchesNothingDoesNotHurt() {
        #expect(PinSet([PinningFixtures.unrelated, PinningFixtures.sha256Pin(pki.intermediate)], scope: .any).check(built).isMatch)
        #expect(!PinSet([PinningFixtures.unrelated, PinningFixtures.unrelated2], scope: .any).check(built).isMatch)
    }

    @Test func anEmptySetMatchesNothing() {
        #expect(!PinSet().check(built).isMatch)
    }

    @Test func mismatchMessageListsTheChainsActualHashes() {
        let set = PinSet([PinningFixtures.unrelated], scope: .ca)
        let message = set.mismatchMessage(host: "www.example.com", chain: built, unmatched: [.ca])
        for cert in [pki.leaf, pki.intermediate, pki.root] { #expect(message.contains("sha256/" + PinningFixtures.hash(cert))) }
        #expect(message.contains("www.example.com"))
        #expect(message.contains(PinningFixtures.unrelated.description))
        #expect(message.contains("CA"))
    }

    @Test func expiryIsAfterTheDate() {
        let date = PKI.now
        let set = PinSet([PinningFixtures.unrelated], scope: .any, expirationDate: date)
        #expect(!set.isExpired(at: date))
        #expect(set.isExpired(at: date.addingTimeInterval(1)))
        #expect(!PinSet().isExpired(at: .distantFuture))
    }
}
