import SwiftASN1
import TransportTrust
import X509

/// The names a client certificate carries: its subject and its subjectAltNames, which name rules match.
public struct ClientCertificateNames: Sendable, Hashable, Codable {
    /// The subject in RFC 4514 form (`CN=client,O=Example`).
    public var subject: String
    /// The subject's common names, in order.
    public var commonNames: [String]
    /// subjectAltName dNSName entries.
    public var dnsNames: [String]
    /// subjectAltName uniformResourceIdentifier entries (SPIFFE IDs are these).
    public var uris: [String]
    /// subjectAltName rfc822Name entries.
    public var emails: [String]

    /// The names of one client certificate, as read from it.
    public init(subject: String = "", commonNames: [String] = [], dnsNames: [String] = [], uris: [String] = [], emails: [String] = []) {
        self.subject = subject
        self.commonNames = commonNames
        self.dnsNames = dnsNames
        self.uris = uris
        self.emails = emails
    }

    /// The names of `certificate`. An unreadable subjectAltName extension gives no SAN names (the chain check
    /// already refuses such a certificate).
    public init(_ certificate: Certificate) {
        var names = ClientCertificateNames(subject: certificate.subject.description)
        for rdn in certificate.subject {
            for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                names.commonNames.append(String(attribute.value) ?? attribute.value.description)
            }
        }
        if let sans = try? certificate.extensions.subjectAlternativeNames {
            for name in sans {
                switch name {
                case .dnsName(let dns): names.dnsNames.append(dns)
                case .uniformResourceIdentifier(let uri): names.uris.append(uri)
                case .rfc822Name(let email): names.emails.append(email)
                default: break
                }
            }
        }
        self = names
    }

    /// The values of one field, as a name rule sees them.
    public func values(of field: ClientNameRule.Field) -> [String] {
        switch field {
        case .subject: return [subject]
        case .commonName: return commonNames
        case .dns: return dnsNames
        case .uri: return uris
        case .email: return emails
        }
    }

    /// A short summary for messages: at most a few names of each kind.
    var summary: String {
        var parts: [String] = []
        if !commonNames.isEmpty { parts.append("CN " + commonNames.prefix(3).joined(separator: ", ")) }
        if !dnsNames.isEmpty { parts.append("DNS " + dnsNames.prefix(3).joined(separator: ", ")) }
        if !uris.isEmpty { parts.append("URI " + uris.prefix(3).joined(separator: ", ")) }
        if !emails.isEmpty { parts.append("email " + emails.prefix(3).joined(separator: ", ")) }
        return parts.isEmpty ? "no names" : parts.joined(separator: "; ")
    }
}
