import Testing

@testable import TransportTrust

@Suite struct NameDisplayTests {
    @Test func anEmptyNameSaysItIsEmpty() {
        #expect(NameDisplay.plain("") == "(an empty name)")
        #expect(NameDisplay.quoted("") == "'' (an empty name)")
    }

    @Test func aNameUpToTheLimitIsShownWhole() {
        let name = "CN=" + String(repeating: "y", count: NameDisplay.limit - 3)
        #expect(NameDisplay.plain(name) == name)
        #expect(NameDisplay.quoted("CN=a,O=b") == "'CN=a,O=b'")
    }

    @Test func aLongerNameIsCutAtTheLimitInCharactersNotBytes() {
        let name = String(repeating: "é", count: NameDisplay.limit + 1)
        #expect(NameDisplay.plain(name) == String(repeating: "é", count: NameDisplay.limit) + "…")
        #expect(NameDisplay.quoted(name) == "'" + String(repeating: "é", count: NameDisplay.limit) + "…'")
    }
}
