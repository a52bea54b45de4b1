import Testing
import TransportServer

@Suite struct ClientNameRuleTests {
    let names = ClientCertificateNames(subject: "CN=payments-api,O=Example", commonNames: ["payments-api"],
                                       dnsNames: ["api.payments.internal"], uris: ["spiffe://example.org/ns/payments/sa/api"],
                                       emails: ["API@Example.org"])

    func rule(_ text: String) throws -> ClientNameRule { try ClientNameRule(parsing: text) }

    @Test func eachFieldMatchesItsOwnNames() throws {
        #expect(try rule("uri:spiffe://example.org/ns/payments/*").match(names) == "spiffe://example.org/ns/payments/sa/api")
        #expect(try rule("URI:SPIFFE://example.org/ns/payments/sa/api").match(names) != nil, "the scheme is case-insensitive")
        #expect(try rule("uri:spiffe://example.org/NS/payments/*").match(names) == nil, "the path is not")
        #expect(try rule("dns:*.payments.internal").match(names) == "api.payments.internal")
        #expect(try rule("dns:API.Payments.Internal").match(names) != nil)
        #expect(try rule("email:*@example.org").match(names) == "API@Example.org")
        #expect(try rule("cn:payments-*").match(names) == "payments-api")
        #expect(try rule("subject:CN=payments-api,O=Example").match(names) != nil)
        #expect(try rule("subject:CN=payments-api").match(names) == nil, "the whole subject must match")
        #expect(try rule("cn:api.payments.internal").match(names) == nil, "a DNS name is not a common name")
    }

    @Test func aDNSWildcardNeverCrossesADot() throws {
        #expect(try rule("dns:*.internal").match(names) == nil)
        #expect(try rule("dns:api.*.internal").match(names) != nil)
        #expect(try rule("dns:a*.payments.internal").match(names) != nil)
        #expect(try rule("uri:spiffe://*").match(names) != nil, "outside DNS a star takes any run")
    }

    @Test func aSubjectStarStaysInsideOneAttributeValue() throws {
        let rule = try rule("subject:CN=*,OU=Admins,O=Example")
        // A common name that spells out the next attribute, with its comma escaped (RFC 4514), is still one value.
        let forged = ClientCertificateNames(subject: "CN=mallory\\,OU=Admins,O=Example", commonNames: ["mallory,OU=Admins"],
                                            dnsNames: [], uris: [], emails: [])
        #expect(rule.match(forged) == nil)
        #expect(!ClientNameRule(.subject, "CN=*,O=Example").matches("CN=a,OU=b,O=Example"), "a star never takes a comma")
        #expect(!ClientNameRule(.subject, "CN=*,O=Example").matches("CN=a+UID=b,O=Example"), "nor a plus")
        #expect(rule.matches("CN=alice,OU=Admins,O=Example"))
        #expect(ClientNameRule(.subject, "CN=*,O=Example").matches("CN=Smith\\, John,O=Example"), "an escaped comma is part of the value")
        #expect(!ClientNameRule(.subject, "CN=*").matches("CN=trailing\\"), "a lone escape at the end matches nothing")
    }

    @Test func globEdges() throws {
        let r = ClientNameRule(.commonName, "a*b*c")
        #expect(r.matches("abc"))
        #expect(r.matches("aXXbYYc"))
        #expect(!r.matches("aXXbYY"))
        #expect(ClientNameRule(.commonName, "*").matches(""))
        #expect(!ClientNameRule(.commonName, "x").matches(""))
        #expect(ClientNameRule(.commonName, "**x").matches("abx"))
    }

    @Test func badRulesSayHowToWriteThem() {
        #expect(throws: ClientNameRuleError.self) { try ClientNameRule(parsing: "payments-api") }
        do {
            _ = try ClientNameRule(parsing: "host:example.org")
            Issue.record("an unknown field was accepted")
        } catch {
            #expect(error.description.contains("FIELD:PATTERN"))
            #expect(error.description.contains("subject, cn, dns, uri, email"))
        }
        #expect(throws: ClientNameRuleError.self) { try ClientNameRule(parsing: "uri:") }
    }
}
