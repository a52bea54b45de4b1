import X509

/// The one path from a leaf to an anchor that its certificates allow by their names, found before any signature
/// is checked.
///
/// Signature verification is the costliest check, so, as OpenSSL and pyca/cryptography order theirs, the rules
/// run first where that cannot change the verdict. swift-certificates' path builder links a certificate only to
/// issuers whose subject is its issuer name, so the paths it can build are among the name-linked ones. When
/// there is exactly one, and it fails a rule, no path can pass: the chain is refused for that reason and its
/// signatures are never verified. No path, or several, is left to the path builder, which verifies each
/// candidate issuer's signature and explains a missing or re-keyed issuer, or which of several paths failed.
struct SoleNamePath {
    /// Partial paths the search may examine before it gives up (and leaves the chain to the path builder).
    static let searchLimit = 64

    let certificates: [Certificate]

    /// Nil when the certificates link into no path, into more than one, or the search exceeds ``searchLimit``.
    init?(leaf: Certificate, intermediates: [Certificate], anchors: TrustAnchors) {
        // Partial paths hold indices into `intermediates`: copying certificates costs more than the search. Two equal
        // certificates at two indices count as two, which can only add paths, never hide one.
        var found: [Int]?
        var anchor: Certificate?
        var paths = 0
        // The path builder trusts a leaf that is itself an anchor without looking further.
        if anchors.input(for: leaf) != nil {
            found = []
            paths = 1
        }
        var partials: [[Int]] = [[]]
        var examined = 0
        while let partial = partials.popLast() {
            examined += 1
            guard examined <= Self.searchLimit else { return nil }
            let tip = partial.last.map { intermediates[$0] } ?? leaf
            for candidate in anchors.certificates(named: tip.issuer)
            where candidate != leaf && !partial.contains(where: { intermediates[$0] == candidate }) {
                paths += 1
                guard paths == 1 else { return nil }
                found = partial
                anchor = candidate
            }
            for index in intermediates.indices where !partial.contains(index) && intermediates[index].subject == tip.issuer {
                partials.append(partial + [index])
            }
        }
        guard let found else { return nil }
        self.certificates = [leaf] + found.map { intermediates[$0] } + (anchor.map { [$0] } ?? [])
    }
}
