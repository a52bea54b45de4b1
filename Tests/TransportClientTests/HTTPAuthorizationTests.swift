import TestSupport
import Testing

@testable import TransportClient

@Suite struct HTTPAuthorizationTests {
    /// RFC 7616 §3.9.1: the same request answered with MD5 and with SHA-256.
    static let rfcChallenge = "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=%ALG%, nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""

    @Test(arguments: [("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
                      ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")])
    func digestMatchesRFC7616Example(algorithm: String, expected: String) throws {
        let challenges = HTTPAuthChallenge.parse([Self.rfcChallenge.replacingOccurrences(of: "%ALG%", with: algorithm)])
        let challenge = try #require(challenges.first)
        #expect(challenge.scheme == "digest")
        #expect(challenge.parameters["qop"] == "auth, auth-int")
        let header = try HTTPAuthorization.digest(challenge: challenge, user: "Mufasa", password: "Circle of Life", method: "GET",
                                                  uri: "/dir/index.html", nonceCount: 1, cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        #expect(header.contains("response=\"\(expected)\""))
        #expect(header.contains("nc=00000001"))
        #expect(header.contains("qop=auth,") || header.contains("qop=auth"))
        #expect(header.contains("opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""))
    }

    @Test func parsesSeveralChallengesInOneHeader() {
        let parsed = HTTPAuthChallenge.parse(["Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\""])
        #expect(parsed.map(\.scheme) == ["newauth", "basic"])
        #expect(parsed.first?.parameters["title"] == "Login to \"apps\"")
        #expect(parsed.last?.realm == "simple")
    }

    @Test func basicIsBase64OfUserColonPassword() {
        // RFC 7617 §2 example.
        #expect(HTTPAuthorization.basic(user: "Aladdin", password: "open sesame") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test func unsupportedDigestVariantsAreErrors() {
        let authInt = HTTPAuthChallenge(scheme: "digest", parameters: ["nonce": "n", "qop": "auth-int"])
        #expect(throws: HTTPAuthorization.DigestError.self) {
            try HTTPAuthorization.digest(challenge: authInt, user: "u", password: "p", method: "GET", uri: "/")
        }
        let sha512 = HTTPAuthChallenge(scheme: "digest", parameters: ["nonce": "n", "algorithm": "SHA-512-256"])
        #expect(throws: HTTPAuthorization.DigestError.self) {
            try HTTPAuthorization.digest(challenge: sha512, user: "u", password: "p", method: "GET", uri: "/")
        }
    }
}
