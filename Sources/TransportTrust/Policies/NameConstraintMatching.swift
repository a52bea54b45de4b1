import Foundation
import X509

/// rfc822Name and uniformResourceIdentifier name constraints, matched as RFC 5280 §4.2.1.10 defines them
/// (swift-certificates refuses the first and matches the second as DNS names). ``NameConstraintGaps`` calls it.
///
/// - rfc822Name: a constraint with an `@` is one mailbox (local part exact, host case-insensitive); `example.com`
///   is every mailbox on that host; `.example.com` every mailbox on a host below it. The names judged are the
///   rfc822Name SANs and, as OpenSSL and BoringSSL do, every emailAddress attribute of the subject (RFC 5280 asks
///   for them when there is no SAN; judging them always only refuses more).
/// - URI: the constraint is a host (`host.example.com`) or, with a leading period, a domain (`.example.com`, which
///   `example.com` is not within). A URI whose authority holds no host name (none, or an IP address) is refused
///   under any URI constraint, as RFC 5280 requires.
///
/// A name that cannot be read (an address without `@`) is uncertain, and fails closed: within every excluded
/// subtree, outside every permitted one.
enum NameConstraintMatching {
    enum Kind {
        case email, uri

        var plural: String { self == .email ? "email addresses (rfc822Name)" : "URIs" }
    }

    static func violation(_ chain: UnverifiedCertificateChain, carrier i: Int, _ constraints: NameConstraints, subject j: Int,
                          sans: SubjectAlternativeNames?, budget: inout Int) -> TrustFailure? {
        for kind in [Kind.email, .uri] {
            let permitted = constraints.permittedSubtrees.compactMap { subtree(of: $0, kind) }
            let excluded = constraints.excludedSubtrees.compactMap { subtree(of: $0, kind) }
            if permitted.isEmpty && excluded.isEmpty { continue }
            for (name, what) in names(chain[j], sans: sans, kind) {
                budget -= permitted.count + excluded.count
                if budget < 0 { return NameConstraintGaps.tooLarge(chain, i) }
                if kind == .uri && host(ofURI: name) == nil {
                    return TrustFailure(.nameConstraints, certificate: i,
                        "\(what) has no host name, and \(chain[i].label) constrains URIs: RFC 5280 requires refusing it")
                }
                if !permitted.isEmpty && !permitted.contains(where: { matches(name, $0, kind) ?? false }) {
                    return TrustFailure(.nameConstraints, certificate: i,
                        "\(what) is outside the \(kind.plural) \(chain[i].label) permits (\(list(permitted)))")
                }
                if let banned = excluded.first(where: { matches(name, $0, kind) ?? true }) {
                    return TrustFailure(.nameConstraints, certificate: i,
                        "\(what) is within \(banned), which \(chain[i].label) excludes")
                }
            }
        }
        return nil
    }

    private static func subtree(of name: GeneralName, _ kind: Kind) -> String? {
        switch (name, kind) {
        case (.rfc822Name(let s), .email), (.uniformResourceIdentifier(let s), .uri): return s
        default: return nil
        }
    }

    /// The names of `kind` a certificate carries, each with how a verdict names it.
    private static func names(_ cert: Certificate, sans: SubjectAlternativeNames?, _ kind: Kind) -> [(String, String)] {
        var found: [(String, String)] = []
        for san in sans ?? SubjectAlternativeNames() {
            if let s = subtree(of: san, kind) { found.append((s, "the \(kind == .email ? "rfc822Name" : "URI") SAN \(NameDisplay.quoted(s)) of \(cert.label)")) }
        }
        if kind == .email {
            for rdn in cert.subject {
                for attribute in rdn where attribute.type == .RDNAttributeType.emailAddress {
                    // An emailAddress that is no string is unreadable: an empty address fails closed.
                    let s = String(attribute.value) ?? ""
                    found.append((s, "the subject emailAddress \(NameDisplay.quoted(s)) of \(cert.label)"))
                }
            }
        }
        return found
    }

    private static func list(_ subtrees: [String]) -> String {
        subtrees.prefix(8).map { $0.isEmpty ? "''" : $0 }.joined(separator: ", ") + (subtrees.count > 8 ? ", …" : "")
    }

    /// Whether `name` is within `constraint`; nil when `name` cannot be read.
    static func matches(_ name: String, _ constraint: String, _ kind: Kind) -> Bool? {
        switch kind {
        case .email: return emailMatches(name, constraint)
        case .uri: return host(ofURI: name).flatMap { hostMatches($0, constraint) }
        }
    }

    static func emailMatches(_ address: String, _ constraint: String) -> Bool? {
        guard let at = address.lastIndex(of: "@"), at != address.startIndex, address.index(after: at) != address.endIndex else { return nil }
        let local = address[..<at], host = address[address.index(after: at)...]
        if let c = constraint.lastIndex(of: "@") {
            // One mailbox: the local part is case-sensitive (RFC 5280 §7.5), the host is not.
            guard let h = dnsForm(host), let mailboxHost = dnsForm(constraint[constraint.index(after: c)...]) else { return nil }
            return local == constraint[..<c] && h == mailboxHost
        }
        return hostMatches(String(host), constraint)
    }

    /// `host.example.com` is that host; `.example.com` is any host below example.com, not example.com itself. An
    /// empty constraint, or `.`, is every host. Nil when the host cannot be read.
    static func hostMatches(_ host: String, _ constraint: String) -> Bool? {
        guard let h = dnsForm(host) else { return nil }
        var c = constraint.lowercased()
        if c.isEmpty || c == "." { return true }
        if c.count > 1, c.hasSuffix(".") { c.removeLast() }
        return c.hasPrefix(".") ? h.count > c.count && h.hasSuffix(c) : h == c
    }

    /// A host as DNS compares it: lowercased, without the one trailing dot that names the same host
    /// (`evil.com.` is `evil.com`, which an exclusion must catch). Nil when a label is empty.
    static func dnsForm<S: StringProtocol>(_ host: S) -> String? {
        var h = host.lowercased()
        if h.hasSuffix(".") { h.removeLast() }
        guard !h.isEmpty, !h.hasPrefix("."), !h.hasSuffix("."), !h.contains("..") else { return nil }
        return h
    }

    /// The host name in a URI's authority; nil when it has none, or an IP address (RFC 5280 §4.2.1.10).
    static func host(ofURI uri: String) -> String? {
        guard let host = URLComponents(string: uri)?.host, !host.isEmpty else { return nil }
        if host.contains(":") || host.hasPrefix("[") || host.allSatisfy({ $0.isNumber || $0 == "." }) { return nil }
        return host
    }
}
