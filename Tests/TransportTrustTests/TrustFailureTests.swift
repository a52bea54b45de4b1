import Foundation
import Testing
@testable import TransportTrust

struct TrustFailureTests {
    @Test func jsonCarriesTheVerifierLimitOnlyWhenSet() throws {
        let plain = TrustFailure(.expired, certificate: 0, "'CN=a' expired")
        let limit = TrustFailure(.unsupportedAlgorithm, certificate: 1, "'CN=b' is signed with RSA-PSS", isVerifierLimitation: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let plainJSON = try #require(String(data: try encoder.encode(plain), encoding: .utf8))
        let limitJSON = try #require(String(data: try encoder.encode(limit), encoding: .utf8))
        #expect(plainJSON == #"{"certificate":0,"code":"expired","message":"'CN=a' expired"}"#)
        #expect(limitJSON == #"{"certificate":1,"code":"unsupportedAlgorithm","message":"'CN=b' is signed with RSA-PSS","verifierLimitation":true}"#)

        let decoder = JSONDecoder()
        #expect(try decoder.decode(TrustFailure.self, from: Data(plainJSON.utf8)) == plain)
        #expect(try decoder.decode(TrustFailure.self, from: Data(limitJSON.utf8)) == limit)
        let noCertificate = try decoder.decode(TrustFailure.self, from: Data(#"{"code":"policy","message":"m"}"#.utf8))
        #expect(noCertificate == TrustFailure(.policy, certificate: nil, "m"))
    }

    @Test func anUnknownCodeDoesNotDecode() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(TrustFailure.self, from: Data(#"{"code":"nope","message":"m"}"#.utf8))
        }
    }
}
