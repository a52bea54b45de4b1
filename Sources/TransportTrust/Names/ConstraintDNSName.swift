/// Which dNSNames swift-certificates' name-constraint matcher can read. It compares only names it considers valid and
/// treats any other as matching no subtree, so a rule that relies on an excluded subtree must refuse the rest itself.
enum ConstraintDNSName {
    /// Mirrors the matcher's test for a name (not a constraint): at most 253 bytes; an optional leading `*.` with at
    /// least two labels after it; labels of 1 to 63 ASCII bytes, none starting or ending with `-`; the last label not
    /// all digits. So a trailing dot (an empty last label) is not readable.
    static func isReadable(_ name: String) -> Bool {
        var bytes = Array(name.utf8)[...]
        guard bytes.count <= 253 else { return false }
        var labels = 0
        var isWildcard = false
        if bytes.first == UInt8(ascii: "*") {
            guard bytes.count >= 2, bytes[bytes.startIndex + 1] == UInt8(ascii: ".") else { return false }
            bytes = bytes.dropFirst(2)
            labels = 1
            isWildcard = true
        }
        if bytes.isEmpty { return !isWildcard }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for (index, label) in parts.enumerated() {
            labels += 1
            guard !label.isEmpty, label.count <= 63,
                  label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                  label.allSatisfy({ $0 < 0x80 })
            else { return false }
            if index == parts.count - 1 && label.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) { return false }
        }
        return !isWildcard || labels >= 3
    }
}
