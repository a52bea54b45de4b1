import Foundation
import SwiftASN1
import X509

/// Names the DNS name or IP address that broke a CA's name constraints.
///
/// swift-certificates decides; its reason names the subtrees and, for a permitted list, no name at all ("no matches!").
/// This finds the name it refused, for the sentence only: when none is found the verdict keeps swift-certificates'
/// own text, and it never changes whether a path is refused.
enum NameConstraintExplanation {
    /// "'CN=leaf' names www.example.net, outside the DNS names 'CN=CA' permits (example.com)", or nil.
    static func offendingName(in chain: UnverifiedCertificateChain, carrier: Int, extensions: ExtensionMemo) -> String? {
        guard carrier > 0, let constraints = extensions(chain[carrier]).nameConstraints.value else { return nil }
        let permitted = Array(constraints.permittedSubtrees), excluded = Array(constraints.excludedSubtrees)
        for i in 0..<carrier where !NameConstraintGaps.isExempt(chain, i) {
            guard let names = extensions(chain[i]).subjectAlternativeNames.value else { continue }
            for name in names {
                guard let shown = text(of: name) else { continue }
                if let hit = excluded.first(where: { covers($0, name) == true }) {
                    return "\(chain[i].label) names \(shown), which \(chain[carrier].label) excludes (\(text(of: hit) ?? "\(hit)"))"
                }
                let sameKind = permitted.filter { covers($0, name) != nil }
                if !sameKind.isEmpty, !sameKind.contains(where: { covers($0, name) == true }) {
                    let kind = if case .dnsName = name { "DNS names" } else { "IP addresses" }
                    let list = sameKind.prefix(8).map { text(of: $0) ?? "\($0)" }.joined(separator: ", ") + (sameKind.count > 8 ? ", …" : "")
                    return "\(chain[i].label) names \(shown), outside the \(kind) \(chain[carrier].label) permits (\(list))"
                }
            }
        }
        return nil
    }

    /// Whether `subtree` covers `name` under RFC 5280 §4.2.1.10; nil when they are not both DNS or both IP.
    static func covers(_ subtree: GeneralName, _ name: GeneralName) -> Bool? {
        switch (subtree, name) {
        case (.dnsName(let constraint), .dnsName(let host)):
            let c = constraint.lowercased(), h = host.lowercased()
            // A name with an empty label (".example.com") is no host name, and no subtree covers it.
            if h.isEmpty || h.hasPrefix(".") || h.contains("..") { return false }
            if c.isEmpty { return true }
            if c.hasPrefix(".") { return h.hasSuffix(c) }
            return h == c || h.hasSuffix("." + c)
        case (.ipAddress(let range), .ipAddress(let address)):
            let r = Array(range.bytes), a = Array(address.bytes)
            // A v4 subtree never covers a v6 address, nor the reverse.
            guard (a.count == 4 || a.count == 16), r.count == 2 * a.count else { return false }
            return a.indices.allSatisfy { a[$0] & r[a.count + $0] == r[$0] & r[a.count + $0] }
        default:
            return nil
        }
    }

    /// A DNS name as written, an address in its usual notation, a range as base/prefix.
    static func text(of name: GeneralName) -> String? {
        switch name {
        case .dnsName(let d):
            return d.isEmpty ? "every DNS name" : d
        case .ipAddress(let ip):
            let b = Array(ip.bytes)
            if b.count == 4 || b.count == 16 { return IPAddressText.format(b) }
            guard b.count == 8 || b.count == 32 else {
                return "a \(b.count)-byte iPAddress (\(b.prefix(16).map { String(format: "%02x", $0) }.joined())\(b.count > 16 ? "…" : ""))"
            }
            let base = Array(b.prefix(b.count / 2)), mask = b.suffix(b.count / 2)
            let bits = mask.flatMap { byte in (0..<8).reversed().map { byte >> $0 & 1 } }
            // A mask that is not a run of ones from the left has no prefix length; show it whole.
            guard bits.drop(while: { $0 == 1 }).allSatisfy({ $0 == 0 }) else {
                return "\(IPAddressText.format(base)) mask \(IPAddressText.format(Array(mask)))"
            }
            return "\(IPAddressText.format(base))/\(bits.prefix { $0 == 1 }.count)"
        default:
            return nil
        }
    }
}
