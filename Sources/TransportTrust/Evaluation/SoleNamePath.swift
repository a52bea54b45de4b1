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
    /// No path within the policy's limit on intermediates reaches an anchor by name, and the names lead on past it:
    /// every path the path builder could make fails `ChainDepthRule`, so none is made.
    case tooLong

    /// Said with a refusal made on the path alone, whose issuers are then linked by name, not yet by signature.
    static let unverifiedNote = "signatures were not checked: the certificates link by name into this one path, and it fails the checks above, so no path can be trusted"
    /// Said with a refusal for ``tooLong`` when no single path can be told.
    static let tooLongNote = "signatures were not checked: no path the names allow is short enough to be trusted"

    /// Partial paths the search may make before it gives up (and leaves the chain to the path builder).
    static let searchLimit = 64

    var certificates: [Certificate]? {
        if case .found(let path) = self { return path }
        return nil
    }

    /// - Parameter maximumIntermediates: the policy's limit (``TrustPolicy/maximumIntermediates``), counted as
    ///   `ChainDepthRule` counts, self-issued certificates aside; a partial path past it is not extended. Nil follows
    ///   every path, so that the one path's rules can explain all that is wrong with it.
    init(leaf: Certificate, intermediates: [Certificate], anchors: TrustAnchors, maximumIntermediates: Int? = nil) {
        // Partial paths hold indices into `intermediates`: copying certificates costs more than the search. Two equal
        // certificates at two indices count as two, which can only add paths, never hide one.
        var found: [Int]?
        var anchor: Certificate?
        // The path builder trusts a leaf that is itself an anchor without looking further.
        if anchors.input(for: leaf) != nil { found = [] }
        var partials: [[Int]] = [[]]
        var made = 1
        var cut = false
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
                let extended = partial + [index]
                // Names are compared only for a path longer than the limit, which no usual chain is.
                if let maximumIntermediates, extended.count > maximumIntermediates,
                   Self.logicalCount(extended, intermediates) > maximumIntermediates {
                    cut = true
                    continue
                }
                // Counted as made, not as examined: many certificates of one name would otherwise fill memory first.
                made += 1
                guard made <= Self.searchLimit else {
                    self = .searchTooLarge
                    return
                }
                partials.append(extended)
            }
        }
        guard let found else {
            self = cut ? .tooLong : .none
            return
        }
        var path = [leaf]
        path.reserveCapacity(found.count + 2)
        for index in found { path.append(intermediates[index]) }
        if let anchor { path.append(anchor) }
        self = .found(path)
    }

    /// For ``tooLong``: the path the names make when each certificate has exactly one issuer among `intermediates`
    /// and `anchors`, followed past the limit to its anchor, so that the refusal names its length and every other
    /// reason as for any sole path; nil when the names branch or end before an anchor. One lookup by name a step.
    static func followingSoleIssuers(leaf: Certificate, intermediates: [Certificate], anchors: TrustAnchors) -> [Certificate]? {
        let byName = NamedCertificates(intermediates)
        var path = [leaf]
        var onPath: Set<Certificate> = [leaf]
        var tip = leaf
        // Each intermediate at most once, then the anchor.
        for _ in 0...intermediates.count {
            let anchor = anchors.certificates(named: tip.issuer).filter { !onPath.contains($0) }
            let next = byName[tip.issuer].filter { !onPath.contains($0) }
            switch (anchor.count, next.count) {
            case (1, 0): return path + anchor
            case (0, 1): tip = next[0]
            default: return nil
            }
            path.append(tip)
            onPath.insert(tip)
        }
        return nil
    }

    /// The intermediates `ChainDepthRule` counts: the self-issued ones are not.
    private static func logicalCount(_ partial: [Int], _ intermediates: [Certificate]) -> Int {
        partial.count { !intermediates[$0].isSelfIssued }
    }
}
