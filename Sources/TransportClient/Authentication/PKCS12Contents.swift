import SwiftASN1

/// What a PKCS#12 bundle shows before anything in it is decrypted (RFC 7292 §4): whether a private-key bag is there.
///
/// swift-nio-ssl 2.37.6 traps (`fatalError`) on a bundle BoringSSL reads without a key and certificate pair, so a
/// certificates-only bundle would crash the process. BoringSSL reads keys only from bags; tools put them in the
/// unencrypted safe contents (a shrouded key bag is encrypted on its own), so a bundle with none there is refused first.
enum PKCS12Contents {
    private static let data: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    /// keyBag and pkcs8ShroudedKeyBag (RFC 7292 §4.2.1, §4.2.2).
    private static let keyBags: [ASN1ObjectIdentifier] = [[1, 2, 840, 113_549, 1, 12, 10, 1, 1], [1, 2, 840, 113_549, 1, 12, 10, 1, 2]]

    /// Whether a key bag is in the bundle's unencrypted safe contents; nil when the bytes are not a PFX at all.
    static func hasVisibleKey(_ bytes: [UInt8]) -> Bool? {
        guard let pfx = try? BER.parse(bytes), let fields = children(pfx), fields.count >= 2,
              let authenticatedSafe = dataContent(fields[1]), let safes = try? BER.parse(authenticatedSafe),
              let contentInfos = children(safes) else { return nil }
        for contentInfo in contentInfos {
            // Encrypted (or enveloped) safe contents cannot be read without the password; BoringSSL finds no key in them.
            guard let contents = dataContent(contentInfo), let safeContents = try? BER.parse(contents), let bags = children(safeContents) else {
                continue
            }
            for bag in bags {
                if let type = children(bag)?.first, let id = try? ASN1ObjectIdentifier(berEncoded: type), keyBags.contains(id) { return true }
            }
        }
        return false
    }

    /// The octets of a ContentInfo of type data; nil for any other type.
    private static func dataContent(_ contentInfo: ASN1Node) -> [UInt8]? {
        guard let fields = children(contentInfo), fields.count == 2, let type = try? ASN1ObjectIdentifier(berEncoded: fields[0]),
              type == data, fields[1].identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
              let octetString = children(fields[1])?.first else { return nil }
        return octets(octetString)
    }

    /// An OCTET STRING's bytes, BER's constructed form (chunks) included.
    private static func octets(_ node: ASN1Node) -> [UInt8]? {
        switch node.content {
        case .primitive(let bytes):
            return Array(bytes)
        case .constructed(let parts):
            var out: [UInt8] = []
            for part in parts {
                guard let chunk = octets(part) else { return nil }
                out += chunk
            }
            return out
        }
    }

    private static func children(_ node: ASN1Node) -> [ASN1Node]? {
        guard case .constructed(let nodes) = node.content else { return nil }
        return Array(nodes)
    }
}
