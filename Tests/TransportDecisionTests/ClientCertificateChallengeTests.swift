import Testing
import TransportDecision

/// The client-certificate branch of the decision, without a socket.
@Suite struct ClientCertificateChallengeTests {
    typealias Challenge = ClientCertificateChallenge

    @Test func theDelegateIsAskedOnceWhenTheServerWantsACertificateNoneWasSent() {
        #expect(Challenge.asksDelegate(refusedForClientCertificate: true, identityPresented: false, hasDelegate: true, askedBefore: false))
    }

    @Test(arguments: [
        (refused: false, presented: false, delegate: true, asked: false),  // refused for another reason
        (refused: true, presented: true, delegate: true, asked: false),  // the configured identity was refused
        (refused: true, presented: false, delegate: false, asked: false),  // nobody to ask
        (refused: true, presented: false, delegate: true, asked: true),  // asked already: a second refusal is final
    ])
    func otherwiseTheRefusalStandsWithoutAsking(_ c: (refused: Bool, presented: Bool, delegate: Bool, asked: Bool)) {
        #expect(!Challenge.asksDelegate(refusedForClientCertificate: c.refused, identityPresented: c.presented,
                                        hasDelegate: c.delegate, askedBefore: c.asked))
    }

    @Test func onlyAnIdentityLeadsToAnotherAttempt() {
        #expect(Challenge.outcome(.identity) == .retryPresentingIdentity)
        #expect(Challenge.outcome(.cancel) == .cancelled)
        #expect(Challenge.outcome(.noIdentity) == .refusalStands)
        #expect(Challenge.outcome(.wrongCredential) == .refusalStands)
    }
}
