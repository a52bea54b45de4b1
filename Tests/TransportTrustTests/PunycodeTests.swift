import TestSupport
import Testing

@testable import TransportTrust

@Suite struct PunycodeTests {
    // Vectors from Python's punycode codec (RFC 3492).
    @Test(arguments: [
        ("bücher", "bcher-kva"),
        ("münchen", "mnchen-3ya"),
        ("español", "espaol-zwa"),
        ("中国", "fiqs8s"),
        ("日本語", "wgv71a119e"),
        ("ελληνικά", "hxargifdar"),
        ("ü", "tda"),
        ("aé", "a-bga"),
        ("straße", "strae-oqa"),
    ])
    func encodesKnownLabels(unicode: String, encoded: String) {
        #expect(Punycode.encode(unicode) == encoded)
    }

    @Test func leavesAnASCIILabelWithATrailingDelimiter() {
        // All-basic input: RFC 3492 appends the delimiter after the basic code points.
        #expect(Punycode.encode("abc") == "abc-")
    }
}
