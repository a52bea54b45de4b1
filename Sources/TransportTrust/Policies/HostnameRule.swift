import SwiftASN1
import X509

/// The SSL policy's name check: the leaf's subjectAltName must contain the name connected to.
///
/// Only dNSName and iPAddress entries count. Unlike swift-certificates' `ServerIdentityPolicy`, there is no
/// fallback to the subject common name: Apple (since iOS 13) and the CA/Browser Forum do not fall back.
package struct HostnameRule: ChainRule {
    package var peer: PeerName
    /// Whether a wildcard over a suffix of the Public Suffix List's PRIVATE section (`*.github.io`) is refused
    /// too, not only one over an ICANN suffix (`*.co.uk`). Only the strict profile does.
    package var refusesWildcardsOverPrivateSuffixes: Bool

    package init(peer: PeerName, refusesWildcardsOverPrivateSuffixes: Bool = false) {
        self.peer = peer
        self.refusesWildcardsOverPrivateSuffixes = refusesWildcardsOverPrivateSuffixes
    }

    package var handledCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.subjectAlternativeName] }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        // The leaf by index: `chain.first` is a copy, a retain per field.
        guard !chain.isEmpty else { return }
        let names: SubjectAlternativeNames?
        switch context.extensions(chain, 0).subjectAlternativeNames {
        case .absent: names = nil
        case .value(let value): names = value
        case .unreadable:
            failures.append(.malformedExtension("subjectAltName", of: chain[0], at: 0))
            return
        }
        guard let names, !names.isEmpty else {
            failures.append(TrustFailure(.hostnameMismatch, certificate: 0,
                "\(chain[0].label) has no subjectAltName, so it names no host; the common name is not used. The certificate must list \(peer) in its subjectAltName"))
            return
        }
        if Self.matches(peer, names, refusingPrivateSuffixes: refusesWildcardsOverPrivateSuffixes) { return }
        // Each with its kind: an address a certificate spells as a DNS name looks the same as the one connected to.
        let presented = names.compactMap { name -> String? in
            switch name {
            case .dnsName(let d): return "DNS:" + NameDisplay.escaped(d)
            case .ipAddress(let ip): return "IP:" + IPAddressText.format(Array(ip.bytes))
            default: return nil
            }
        }
        let list = presented.isEmpty ? "no DNS or IP names" : presented.prefix(8).joined(separator: ", ") + (presented.count > 8 ? ", …" : "")
        var fix = "Connect with one of those names, or have the certificate reissued with \(peer)"
        if case .ip = peer, presented.contains("DNS:\(peer)") {
            fix = "It lists \(peer) as a DNS name, which never matches an address: have the certificate reissued with IP:\(peer)"
        }
        if let problem = PublicSuffixList.problem, presented.contains(where: { $0.hasPrefix("DNS:*.") }) {
            // Without the list no wildcard can be shown to sit below a public suffix, so none matches.
            fix = "No wildcard matches here because \(problem)"
        }
        failures.append(TrustFailure(.hostnameMismatch, certificate: 0, "\(chain[0].label) is not valid for \(peer): it names \(list). \(fix)"))
    }

    static func matches(_ peer: PeerName, _ names: SubjectAlternativeNames, refusingPrivateSuffixes: Bool) -> Bool {
        switch peer {
        case .dns(let host):
            for case .dnsName(let pattern) in names
            where HostnameMatching.dnsPatternMatches(pattern, host: host, refusingPrivateSuffixes: refusingPrivateSuffixes) {
                return true
            }
        case .ip(let bytes):
            for case .ipAddress(let ip) in names where Array(ip.bytes) == bytes { return true }
        }
        return false
    }
}
