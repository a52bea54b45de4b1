import X509

/// The one path from a leaf to an anchor that its certificates allow by their names, found before any signature
/// is checked.
///
/// Signature verification is the costliest check, so, as OpenSSL and pyca/cryptography order theirs, the rules
/// run first where that cannot change the verdict. The path builder links a certificate only to issuers whose
/// subject matches its issuer name (RFC 5280 §7.1, ``NamedCertificates``), so the paths it can build are among the name-linked ones. When
/// there is exactly one, and it fails a rule, no path can pass: the chain is refused for that reason and its
/// signatures are never verified. No path, or several, is left to the path builder, which verifies each
/// candidate issuer's signature and explains a missing or re-keyed issuer, or which of several paths failed.
enum SoleNamePath: Equatable {
    /// The one path, leaf first and anchor last.
    case found([Certificate])
    /// No name-linked path reaches an anchor.
    case none
    /// More than one does.
    case several
    /// The search made ``searchLimit`` partial paths without settling which.
    case searchTooLarge

    /// Said with a refusal made on the path alone, whose issuers are then linked by name, not yet by signature.
    static let unverifiedNote = "signatures were not checked: the certificates link by name into this one path, and it fails the checks above, so no path can be trusted"

    /// Partial paths the search may make before it gives up (and leaves the chain to the path builder).
    static let searchLimit = 64

    var certificates: [Certificate]? {
        if case .found(let path) = self { return path }
        return nil
    }

    init(leaf: Certificate, intermediates: [Certificate], anchors: TrustAnchors) {
        // Partial paths hold indices into `intermediates`: copying certificates costs more than the search. Two equal
        // certificates at two indices count as two, which can only add paths, never hide one.
        var found: [Int]?
        var anchor: Certificate?
        // The path builder trusts a leaf that is itself an anchor without looking further.
        if anchors.input(for: leaf) != nil { found = [] }
        var partials: [[Int]] = [[]]
        var made = 1
        while let partial = partials.popLast() {
            // The tip's issuer name alone: a whole certificate copied per partial path is a retain per field.
            let issuer = partial.last.map { intermediates[$0].issuer } ?? leaf.issuer
            for candidate in anchors.certificates(named: issuer)
            where candidate != leaf && !partial.contains(where: { intermediates[$0] == candidate }) {
                guard found == nil else {
                    self = .several
                    return
                }
                found = partial
                anchor = candidate
            }
            for index in intermediates.indices where !partial.contains(index) && ComparableName.matches(intermediates[index].subject, issuer) {
                // Counted as made, not as examined: many certificates of one name would otherwise fill memory first.
                made += 1
                guard made <= Self.searchLimit else {
                    self = .searchTooLarge
                    return
                }
                partials.append(partial + [index])
            }
        }
        guard let found else {
            self = .none
            return
        }
        var path = [leaf]
        path.reserveCapacity(found.count + 2)
        for index in found { path.append(intermediates[index]) }
        if let anchor { path.append(anchor) }
        self = .found(path)
    }
}
