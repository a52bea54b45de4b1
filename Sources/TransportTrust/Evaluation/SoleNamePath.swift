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
        var found: [Certificate]?
        var paths = 0
        // The path builder trusts a leaf that is itself an anchor without looking further.
        if anchors.input(for: leaf) != nil {
            found = [leaf]
            paths = 1
        }
        var partials: [[Certificate]] = [[leaf]]
        var examined = 0
        while let partial = partials.popLast() {
            examined += 1
            guard examined <= Self.searchLimit, let tip = partial.last else { return nil }
            for anchor in anchors.certificates(named: tip.issuer) where !partial.contains(anchor) {
                paths += 1
                guard paths == 1 else { return nil }
                found = partial + [anchor]
            }
            for parent in intermediates where parent.subject == tip.issuer && !partial.contains(parent) {
                partials.append(partial + [parent])
            }
        }
        guard let found else { return nil }
        self.certificates = found
    }
}
