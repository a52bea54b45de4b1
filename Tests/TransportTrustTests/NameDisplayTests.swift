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

    /// A name comes from the peer: a newline would forge a log line, ESC would rewrite the terminal.
    @Test func whatCouldRewriteALineOrATerminalIsEscaped() {
        #expect(NameDisplay.plain("CN=evil\nclient verified: subject=\"CN=admin\"") == "CN=evil\\nclient verified: subject=\"CN=admin\"")
        #expect(NameDisplay.quoted("CN=\u{1B}[31mred\r\t") == "'CN=\\u{1B}[31mred\\r\\t'")
        #expect(NameDisplay.escaped("a\u{202E}b\u{2028}c\u{7F}\u{85}") == "a\\u{202E}b\\u{2028}c\\u{7F}\\u{85}")
        #expect(NameDisplay.escaped("CN=Zürich, O=日本") == "CN=Zürich, O=日本")
    }
}
