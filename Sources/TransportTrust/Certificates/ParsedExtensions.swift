import Foundation
import NIOConcurrencyHelpers
import X509

/// One extension as read from a certificate: absent, its parsed value, or present but unreadable.
enum ParsedExtension<Value: Sendable>: Sendable {
    case absent
    case value(Value)
    case unreadable

    init(_ read: () throws -> Value?) {
        do { self = try read().map(Self.value) ?? .absent } catch { self = .unreadable }
    }

    /// The value, nil both when absent and when unreadable (as `try?` on swift-certificates' accessor).
    var value: Value? {
        if case .value(let v) = self { return v }
        return nil
    }

    var isUnreadable: Bool {
        if case .unreadable = self { return true }
        return false
    }
}

/// The extensions the rules read, parsed once. swift-certificates parses an extension on every access, and
/// the rules of one path read the same extensions three or four times between them: a tenth of a limbo run.
/// A class, so that handing it to each rule is one retain rather than one per extension.
final class ParsedExtensions: Sendable {
    let basicConstraints: ParsedExtension<BasicConstraints>
    let keyUsage: ParsedExtension<KeyUsage>
    let extendedKeyUsage: ParsedExtension<ExtendedKeyUsage>
    let subjectAlternativeNames: ParsedExtension<SubjectAlternativeNames>
    let nameConstraints: ParsedExtension<NameConstraints>
    let authorityKeyIdentifier: ParsedExtension<AuthorityKeyIdentifier>
    let subjectKeyIdentifier: ParsedExtension<SubjectKeyIdentifier>
    let authorityInformationAccess: ParsedExtension<AuthorityInformationAccess>
    /// The certificate policy extensions (`CertificatePolicyRule`, which every policy runs), so that a warm
    /// intermediate's and an anchor's are read once rather than in every evaluation.
    let policies: Result<PolicyExtensions, PolicyExtensions.Malformed>

    init(_ cert: Certificate) {
        let e = cert.extensions
        basicConstraints = ParsedExtension { try e.basicConstraints }
        keyUsage = ParsedExtension { try e.keyUsage }
        extendedKeyUsage = ParsedExtension { try e.extendedKeyUsage }
        subjectAlternativeNames = ParsedExtension { try e.subjectAlternativeNames }
        nameConstraints = ParsedExtension { try e.nameConstraints }
        authorityKeyIdentifier = ParsedExtension { try e.authorityKeyIdentifier }
        subjectKeyIdentifier = ParsedExtension { try e.subjectKeyIdentifier }
        authorityInformationAccess = ParsedExtension { try e.authorityInformationAccess }
        policies = Result { () throws(PolicyExtensions.Malformed) in try PolicyExtensions(e) }
    }

    var isCA: Bool {
        if case .isCertificateAuthority? = basicConstraints.value { return true }
        return false
    }

    /// The first extension swift-certificates knows but cannot parse, by name.
    var unreadable: String? {
        if basicConstraints.isUnreadable { return "basicConstraints" }
        if keyUsage.isUnreadable { return "keyUsage" }
        if extendedKeyUsage.isUnreadable { return "extendedKeyUsage" }
        if subjectAlternativeNames.isUnreadable { return "subjectAltName" }
        if nameConstraints.isUnreadable { return "nameConstraints" }
        if authorityKeyIdentifier.isUnreadable { return "authorityKeyIdentifier" }
        if subjectKeyIdentifier.isUnreadable { return "subjectKeyIdentifier" }
        // RFC 5280 §4.2.2.1: one or more access descriptions.
        switch authorityInformationAccess {
        case .absent: return nil
        case .value(let aia): return aia.isEmpty ? "authorityInformationAccess" : nil
        case .unreadable: return "authorityInformationAccess"
        }
    }
}

/// Parsed extensions for the certificates of one evaluation, shared by every rule and every candidate path.
/// It lives as long as the evaluation, so it holds at most the certificates that evaluation was given.
final class ExtensionMemo: Sendable {
    /// Extensions are part of the signed bytes, so those bytes alone say which parse applies. Keying by the whole
    /// `Certificate` copied it, a retain per field, on every lookup.
    struct Key: Hashable {
        let tbs: ArraySlice<UInt8>
        func hash(into h: inout Hasher) { CertificateKey.hashTBS(tbs, into: &h) }
    }

    private struct State {
        var parsed: [Key: ParsedExtensions] = [:]
        /// Parses made before the evaluation: the anchors', made once per ``TrustAnchors``.
        var premade: [Key: ParsedExtensions] = [:]
        /// The first few certificates asked about, searched before hashing: a cold evaluation asks some fifteen
        /// times about three certificates, and comparing slices of one buffer is a pointer check.
        var recent: [(tbs: ArraySlice<UInt8>, parsed: ParsedExtensions)] = []
    }

    private let state = NIOLockedValueBox(State())
    private static let recentCapacity = 8

    /// Uses the anchors' parses, made once, instead of parsing each anchor's extensions again in every evaluation.
    func adopt(_ anchors: TrustAnchors) {
        state.withLockedValue { $0.premade = anchors.parsedExtensions }
    }

    /// Uses a parse made in an earlier evaluation (a warm intermediate's), so that it is not made again.
    func seed(_ tbs: ArraySlice<UInt8>, _ parsed: ParsedExtensions) {
        state.withLockedValue { state in
            if state.recent.count < Self.recentCapacity { state.recent.append((tbs, parsed)) }
        }
    }

    func callAsFunction(_ cert: Certificate) -> ParsedExtensions {
        known(cert.tbsCertificateBytes) ?? parse(cert)
    }

    /// `chain[i]`'s extensions, read by index: binding the certificate first copies it, a retain per field, and a
    /// warm evaluation asks some twenty times.
    func callAsFunction(_ chain: UnverifiedCertificateChain, _ i: Int) -> ParsedExtensions {
        known(chain[i].tbsCertificateBytes) ?? parse(chain[i])
    }

    private func known(_ tbs: ArraySlice<UInt8>) -> ParsedExtensions? {
        state.withLockedValue { state in
            if let hit = state.recent.first(where: { $0.tbs == tbs }) { return hit.parsed }
            let key = Key(tbs: tbs)
            guard let found = state.premade[key] ?? (state.parsed.isEmpty ? nil : state.parsed[key]) else { return nil }
            if state.recent.count < Self.recentCapacity { state.recent.append((tbs, found)) }
            return found
        }
    }

    private func parse(_ cert: Certificate) -> ParsedExtensions {
        let tbs = cert.tbsCertificateBytes
        let fresh = ParsedExtensions(cert)
        state.withLockedValue { state in
            // The few certificates of a usual evaluation stay in `recent` alone: hashing them and growing a dictionary
            // cost a sixth of the parse.
            if state.recent.count < Self.recentCapacity {
                state.recent.append((tbs, fresh))
            } else {
                state.parsed[Key(tbs: tbs)] = fresh
            }
        }
        return fresh
    }
}
