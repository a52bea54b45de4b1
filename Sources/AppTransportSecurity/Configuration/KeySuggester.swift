/// Suggests the key a misspelled one was meant to be ("NSExceptionMinimumTLSVerion" → "NSExceptionMinimumTLSVersion").
///
/// Uses the optimal-string-alignment distance (insertions, deletions, substitutions, adjacent swaps),
/// ignoring case, and accepts a candidate within a quarter of its length (at most 4 edits).
package enum KeySuggester {
    /// The closest of `candidates` to `key`, if close enough to be a typo.
    public static func suggestion(for key: String, among candidates: [String]) -> String? {
        let k = Array(key.lowercased().unicodeScalars)
        var best: (String, Int)?
        for c in candidates {
            let cs = Array(c.lowercased().unicodeScalars)
            let limit = min(4, max(1, cs.count / 4))
            guard abs(cs.count - k.count) <= limit else { continue }
            let d = distance(k, cs)
            if d <= limit, best == nil || d < best?.1 ?? Int.max { best = (c, d) }
        }
        return best?.0
    }

    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
