import Foundation
import SwiftASN1
import X509

/// RFC 5280 §6.3: the revocation status of one certificate from the CRLs at hand. Free of I/O: the CRLs are given.
///
/// Each of the certificate's distribution points (or, when it names none, the default one: its issuer, every reason)
/// is checked against each complete CRL whose issuer and scope fit (§6.3.3 (b)), whose reasons add to what is known
/// (c, d), that is current (a) and signed by a certificate allowed to sign it (f, g); a delta CRL of the same scope
/// and issuer is applied on top (h, i). The status is "not revoked" only once every reason is covered.
struct CRLCheck {
    var crls: [CertificateRevocationList]
    var validationTime: Date
    /// The validated path below its anchor. Only these and the anchors may have issued a CRL signer that is not the
    /// certificate's own issuer: a certificate the peer merely sent vouches for nothing.
    var path: [Certificate]
    /// Other certificates the peer sent, any of which may sign a CRL if the path issued it.
    var candidates: [Certificate]
    /// Certificates whose keys are trusted without a path: the anchors of the path.
    var anchors: [Certificate]

    enum Status: Equatable, Sendable {
        case notRevoked
        case revoked(reason: String)
        /// Nothing decided; why, in words (empty when no CRL was about the certificate).
        case undetermined([String])
    }

    /// - Parameter vouched: a CRL signer whose own status is being decided: it may sign the CRL that decides it (§6.3.3 (f)
    ///   ends there, as PKITS 4.14.30 expects).
    func status(of certificate: Certificate, issuer: Certificate, depth: Int = 0, vouched: Certificate? = nil) -> Status {
        let points: [CRLDistributionPoint]
        do { points = try CRLDistributionPoint.all(in: certificate) } catch {
            return .undetermined(["\(certificate.label)'s cRLDistributionPoints cannot be read: \(error)"])
        }
        // §6.3.3: a certificate without the extension has the default point, its issuer and every reason.
        let scopes = points.isEmpty ? [CRLDistributionPoint(name: nil, reasons: nil, crlIssuer: nil)] : points
        var covered = CRLReasons()
        var reasons: [String] = []
        let isCA = certificate.isCA
        for point in scopes {
            // Every complete CRL in scope is read, not only until the reasons are covered: an older CRL that is still
            // current must not hide a newer one that lists the certificate. Only a newer CRL of the same issuer and
            // scope, itself usable, overrules a listing (a hold that was lifted).
            var decided: [(crl: CertificateRevocationList, revoked: String?, mask: CRLReasons)] = []
            for crl in crls where !crl.isDelta {
                switch evaluate(crl, point: point, certificate: certificate, issuer: issuer, isCA: isCA, depth: depth, vouched: vouched) {
                case .skip: continue
                case .unusable(let why): reasons.append(why)
                case .revoked(let reason): decided.append((crl, reason, []))
                case .covers(let mask): decided.append((crl, nil, mask))
                }
            }
            for listing in decided {
                guard let reason = listing.revoked else { continue }
                if !decided.contains(where: { $0.revoked == nil && Self.supersedes($0.crl, listing.crl) }) { return .revoked(reason: reason) }
            }
            for cover in decided where cover.revoked == nil { covered.formUnion(cover.mask) }
        }
        if covered == .all { return .notRevoked }
        if reasons.isEmpty && covered.isEmpty { return .undetermined([]) }
        if !covered.isEmpty { reasons.append("the CRLs at hand cover only some revocation reasons") }
        return .undetermined(reasons)
    }

    private enum Outcome {
        case skip
        case unusable(String)
        case revoked(String)
        case covers(CRLReasons)
    }

    /// RFC 5280 §6.3.3 (a) to (j), cheapest first; each step narrows what the next may accept.
    private func evaluate(_ crl: CertificateRevocationList, point: CRLDistributionPoint, certificate: Certificate, issuer: Certificate,
                          isCA: Bool, depth: Int, vouched: Certificate?) -> Outcome {
        let indirect = crl.issuingDistributionPoint?.indirectCRL ?? false
        guard let mask = Self.reasonsInScope(of: crl, point: point, certificate: certificate, isCA: isCA, indirect: indirect) else { return .skip }
        if let why = currencyProblem(crl) { return .unusable(why) }
        // (f), (g): signed by a certificate allowed to sign it.
        let signer: Certificate
        switch findSigner(crl, issuer: issuer, depth: depth, vouched: vouched) {
        case .success(let found): signer = found
        case .failure(let why): return .unusable(why.text)
        }
        switch latestDelta(of: crl, signer: signer) {
        case .replaced(let why):
            return .unusable(why)
        case .latest(let delta?):
            if let outcome = apply(delta, of: crl, to: certificate, indirect: indirect, mask: mask) { return outcome }
        case .latest(nil):
            break
        }
        // (j): the complete CRL.
        if let entry = Self.entry(for: certificate, in: crl, indirect: indirect) {
            // removeFromCRL belongs in delta CRLs only (§5.3.1); in a complete CRL it revokes nothing.
            if entry.reason == 8 { return .covers(mask) }
            return .revoked(Self.describe(entry.reason, crl: crl, delta: false))
        }
        return .covers(mask)
    }

    /// (b) and (d): the reasons `crl` may decide for `certificate` at `point`; nil when its issuer or scope does not
    /// fit, or it is for no reason the point asks about.
    private static func reasonsInScope(of crl: CertificateRevocationList, point: CRLDistributionPoint, certificate: Certificate,
                                       isCA: Bool, indirect: Bool) -> CRLReasons? {
        // (b)(1): the CRL's issuer is the one the point names, or the certificate's issuer.
        if let crlIssuer = point.crlIssuer {
            guard crlIssuer.contains(.directoryName(crl.issuer)), indirect else { return nil }
        } else if !ComparableName.matches(crl.issuer, certificate.issuer) {
            return nil
        }
        // (b)(2): the scope of the CRL covers the certificate.
        var mask = point.reasons ?? .all
        if let idp = crl.issuingDistributionPoint {
            if let name = idp.name {
                let idpNames = Set(name.names(issuer: crl.issuer))
                let pointNames: [GeneralName]
                if let pointName = point.name {
                    pointNames = pointName.names(issuer: point.crlIssuer.flatMap(Self.directoryName) ?? certificate.issuer)
                } else {
                    pointNames = point.crlIssuer ?? [.directoryName(certificate.issuer)]
                }
                guard pointNames.contains(where: idpNames.contains) else { return nil }
            }
            if idp.onlyContainsUserCerts && isCA { return nil }
            if idp.onlyContainsCACerts && !isCA { return nil }
            if idp.onlyContainsAttributeCerts { return nil }
            if let some = idp.onlySomeReasons { mask.formIntersection(some) }
        }
        // (d): a CRL for no reason this point asks about decides nothing.
        return mask.isEmpty ? nil : mask
    }

    /// (a): why a complete CRL is not current at the validation time, or cannot be used at all; nil when it can.
    private func currencyProblem(_ crl: CertificateRevocationList) -> String? {
        if crl.thisUpdate > validationTime {
            return "a CRL from \(crl.issuer.label) is not yet valid (thisUpdate \(Self.format(crl.thisUpdate)))"
        }
        if let next = crl.nextUpdate, next < validationTime {
            return "the CRL from \(crl.issuer.label) is out of date (nextUpdate \(Self.format(next)) has passed)"
        }
        if let why = crl.unusable { return "the CRL from \(crl.issuer.label) cannot be used: \(why)" }
        return nil
    }

    private enum DeltaSearch {
        /// The highest-numbered delta on this CRL, if any.
        case latest(CertificateRevocationList?)
        /// A current delta builds on a later complete CRL: this one is out of date, and why.
        case replaced(String)
    }

    /// (h), (i): the latest delta CRL of the same issuer and scope, signed by the same key. Deltas are cumulative, so
    /// only the highest-numbered one counts: an older removeFromCRL must not undo a later listing.
    private func latestDelta(of crl: CertificateRevocationList, signer: Certificate) -> DeltaSearch {
        var latest: (delta: CertificateRevocationList, number: ArraySlice<UInt8>)?
        for delta in crls where delta.isDelta && ComparableName.matches(delta.issuer, crl.issuer) && delta.issuingDistributionPoint == crl.issuingDistributionPoint {
            guard let base = delta.deltaBase, let number = crl.number, let deltaNumber = delta.number, Self.compare(deltaNumber, number) > 0,
                  CRLSignature.verify(delta, with: signer.publicKey) == .valid else { continue }
            if Self.compare(base, number) > 0 {
                // A current delta on a later base is signed proof that this complete CRL has been replaced (§5.2.4).
                if delta.unusable == nil, delta.thisUpdate <= validationTime, delta.nextUpdate.map({ $0 >= validationTime }) ?? false {
                    return .replaced("the CRL from \(crl.issuer.label) is number \(Self.decimal(number)), but a current delta CRL builds on number \(Self.decimal(base)), a later complete CRL that was not handed in or fetched")
                }
                continue
            }
            if latest.map({ Self.compare(deltaNumber, $0.number) > 0 }) ?? true { latest = (delta, deltaNumber) }
        }
        return .latest(latest?.delta)
    }

    /// The latest delta's word on `certificate`, which comes before the complete CRL's; nil when it lists nothing
    /// about it.
    private func apply(_ delta: CertificateRevocationList, of crl: CertificateRevocationList, to certificate: Certificate,
                       indirect: Bool, mask: CRLReasons) -> Outcome? {
        // The latest delta of this CRL that cannot be used leaves the status open: it may hold the latest revocations (§6.3.3 (a) (2)).
        if let why = delta.unusable { return .unusable("a delta CRL from \(crl.issuer.label) cannot be used: \(why)") }
        if delta.thisUpdate > validationTime { return .unusable("a delta CRL from \(crl.issuer.label) is not yet valid") }
        if let next = delta.nextUpdate, next < validationTime {
            return .unusable("the delta CRL from \(crl.issuer.label) is out of date (nextUpdate \(Self.format(next)) has passed)")
        }
        if let entry = Self.entry(for: certificate, in: delta, indirect: indirect) {
            if entry.reason == 8 { return .covers(mask) }  // removeFromCRL: no longer revoked (§6.3.3 (i)).
            return .revoked(Self.describe(entry.reason, crl: delta, delta: true))
        }
        return nil
    }

    /// Whether `newer` replaces `older`: the same issuer and scope, and a higher cRLNumber (RFC 5280 §5.2.3).
    static func supersedes(_ newer: CertificateRevocationList, _ older: CertificateRevocationList) -> Bool {
        guard let a = newer.number, let b = older.number, ComparableName.matches(newer.issuer, older.issuer),
              newer.issuingDistributionPoint == older.issuingDistributionPoint else { return false }
        return compare(a, b) > 0
    }

    private static func directoryName(_ names: [GeneralName]) -> DistinguishedName? {
        for name in names { if case .directoryName(let dn) = name { return dn } }
        return nil
    }

    /// The entry about `certificate`, which in an indirect CRL must be listed under the certificate's issuer. Names
    /// compare as RFC 5280 §7.1 asks, as the CRL's issuer did when the CRL was chosen: compared byte for byte, a CRL
    /// that spells its own name in another case or string type would apply and yet revoke nothing.
    private static func entry(for certificate: Certificate, in crl: CertificateRevocationList, indirect: Bool) -> RevokedEntries.Entry? {
        let found = crl.entries.entries(for: certificate.serialNumber.bytes)
        return found.first { entry in
            crl.entries.issuers[Int(entry.issuer)].contains { name in
                guard case .directoryName(let issuer) = name else { return false }
                return ComparableName.matches(issuer, certificate.issuer)
            }
        }
    }

    private static func describe(_ reason: UInt8, crl: CertificateRevocationList, delta: Bool) -> String {
        let source = delta ? "a delta CRL" : "the CRL"
        let why = reason == RevokedEntries.noReason ? "" : " (reason: \(CRLReasons.name(Int(reason))))"
        return "\(source) from \(crl.issuer.label) lists it\(why)"
    }

    struct SignerFailure: Error { var text: String }

    /// The certificate that signed `crl`: the issuer itself, or another certificate of the CRL issuer's name that the
    /// issuer or an anchor signed and that is itself not revoked (§6.3.3 (f)). It must assert cRLSign when it has keyUsage.
    private func findSigner(_ crl: CertificateRevocationList, issuer: Certificate, depth: Int,
                            vouched: Certificate?) -> Result<Certificate, SignerFailure> {
        var reasons: [String] = []
        var tried = Set<CertificateKey>()
        for (candidate, isIssuer) in [(issuer, true)] + (path + candidates + anchors).map({ ($0, false) }) {
            guard ComparableName.matches(candidate.subject, crl.issuer), tried.insert(CertificateKey(candidate)).inserted else { continue }
            if let keyID = crl.authorityKeyID, let ski = try? candidate.extensions.subjectKeyIdentifier, ski.keyIdentifier != keyID {
                continue
            }
            let signature = CRLSignature.verify(crl, with: candidate.publicKey)
            if case .unsupported(let what) = signature {
                reasons.append("the CRL from \(crl.issuer.label) is signed with \(what)")
                continue
            }
            guard signature == .valid else { continue }
            if let usage = try? candidate.extensions.keyUsage, !usage.cRLSign {
                reasons.append("\(candidate.label) signed the CRL from \(crl.issuer.label) but its keyUsage does not assert cRLSign (RFC 5280 §4.2.1.3)")
                continue
            }
            if (try? candidate.extensions.keyUsage) == nil, candidate.extensions[oid: .X509ExtensionID.keyUsage] != nil {
                reasons.append("\(candidate.label)'s keyUsage cannot be read")
                continue
            }
            if isIssuer || anchors.contains(candidate) || candidate == vouched { return .success(candidate) }
            if let why = validateSigner(candidate, issuedAbove: issuer, depth: depth) {
                reasons.append(why)
                continue
            }
            return .success(candidate)
        }
        if reasons.isEmpty {
            reasons.append("the CRL from \(crl.issuer.label) is not signed by \(issuer.label) or another certificate allowed to sign it")
        }
        return .failure(SignerFailure(text: reasons.joined(separator: "; ")))
    }

    /// A CRL signer other than the issuer: issued by `issuer` (the checked certificate's), a CA above it on the path,
    /// or an anchor, current, and not revoked. Never by a certificate the peer only sent (a forged signer would vouch
    /// for a forged CRL), nor by the checked certificate or one below it: the holder of a revoked key could otherwise
    /// certify a signer in its CA's name and sign itself an empty CRL.
    private func validateSigner(_ signer: Certificate, issuedAbove issuer: Certificate, depth: Int) -> String? {
        guard depth < 2 else { return "the CRL signer \(signer.label) is too far from the path to be checked" }
        guard signer.notValidBefore <= validationTime, validationTime <= signer.notValidAfter else {
            return "the CRL signer \(signer.label) is not valid at the validation time"
        }
        let above = path.firstIndex(of: issuer).map { Array(path[$0...]) } ?? []
        let parents = (above + anchors).filter { ComparableName.matches($0.subject, signer.issuer) && $0.publicKey.isValidSignature(signer.signature, for: signer) }
        guard let parent = parents.first else {
            if let below = path.first(where: { !above.contains($0) && ComparableName.matches($0.subject, signer.issuer) }) {
                return "the CRL signer \(signer.label) is issued by \(below.label), which is neither \(issuer.label) nor a CA above it on the path, so it cannot certify a CRL signer"
            }
            return "the CRL signer \(signer.label) does not chain to the path"
        }
        switch status(of: signer, issuer: parent, depth: depth + 1, vouched: signer) {
        case .notRevoked: return nil
        case .revoked(let reason): return "the CRL signer \(signer.label) is revoked: \(reason)"
        case .undetermined(let why):
            return "the revocation status of the CRL signer \(signer.label) is unknown" + (why.isEmpty ? "" : ": " + why.joined(separator: "; "))
        }
    }

    /// A CRL number as people read it, for numbers up to 64 bits; longer ones in hex.
    static func decimal(_ number: ArraySlice<UInt8>) -> String {
        guard number.count <= 8 else { return "0x" + number.map { String(format: "%02x", $0) }.joined() }
        return String(number.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// Orders two unsigned big-endian numbers without leading zeros.
    static func compare(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return 0
    }

    static func format(_ date: Date) -> String { date.formatted(.iso8601) }
}

extension Certificate {
    /// True for a CA certificate (basicConstraints cA), as onlyContainsCACerts and onlyContainsUserCerts read it.
    var isCA: Bool {
        if case .isCertificateAuthority? = try? extensions.basicConstraints { return true }
        return false
    }
}
