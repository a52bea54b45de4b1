import Foundation
import TransportTrust

/// NSPinnedDomains as a pin configuration: each entry a pinned host with CA and leaf scopes. Read by the parser that
/// reads every ATS configuration, so that its NSPinnedDomains mean exactly what they mean to ``RequirementsResolver``.
enum ATSPinFile: PinFileCodec {
    /// The name of an XML document's root element, past the declaration, comments and a DOCTYPE; nil when the bytes
    /// are not XML text or the root cannot be found.
    static func rootElement(of bytes: [UInt8]) -> String? {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func skipSpace() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
        func skip(past end: [UInt8]) -> Bool {
            guard let r = bytes[i...].firstRange(of: end) else { return false }
            i = r.upperBound
            return true
        }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "<") else { return nil }
            if bytes[i...].starts(with: Array("<?".utf8)) { guard skip(past: Array("?>".utf8)) else { return nil }; continue }
            if bytes[i...].starts(with: Array("<!--".utf8)) { guard skip(past: Array("-->".utf8)) else { return nil }; continue }
            if bytes[i...].starts(with: Array("<!".utf8)) { guard skip(past: Array(">".utf8)) else { return nil }; continue }
            let name = bytes[(i + 1)...].prefix { !([0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains($0)) }
            return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
        }
    }

    static func read(_ bytes: [UInt8], source: String) throws(PinConfigurationError)
        -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning]) {
        (try configuration(bytes, source: source), [])
    }

    private static func configuration(_ bytes: [UInt8], source: String) throws(PinConfigurationError) -> PinConfiguration {
        // An XML file of another kind (a misspelt Android root, say) is named by its root, not called a broken plist.
        if let root = rootElement(of: bytes), root != "plist" {
            throw PinConfigurationError(.malformedDocument, source: source,
                "its root element is <\(NameDisplay.escaped(String(root.prefix(60))))>, which no pin file has",
                fix: "A pin file's root is <plist> (Info.plist NSPinnedDomains, TrustKit) or <network-security-config> (Android); check its spelling")
        }
        let file: ConfigurationSource
        do { file = try ConfigurationLoader().load(data: Data(bytes), name: source) } catch {
            throw PinConfigurationError(.malformedDocument, source: source, "it is not a property list: \(error.description)",
                                        fix: "Give an Info.plist, or a plist holding the NSAppTransportSecurity dictionary")
        }
        func line(_ path: PlistKeyPath) -> Int? { file.location(of: path)?.line }
        if !file.containerIssues.isEmpty {
            throw PinConfigurationError(.wrongType, source: source, line: file.rootLocation(of: file.atsPrefix)?.line,
                                        "NSAppTransportSecurity is not a dictionary", fix: "Make NSAppTransportSecurity a <dict>")
        }
        let configuration = file.configuration
        guard configuration.presentKeys.contains(.pinnedDomains) else {
            throw PinConfigurationError(.missingKey, source: source, "there is no NSPinnedDomains dictionary",
                fix: "Put the pins under NSAppTransportSecurity → NSPinnedDomains → DOMAIN → NSPinnedCAIdentities / NSPinnedLeafIdentities")
        }
        // What ATS would ignore with a warning is an error here: a pin file that does not say what it seems to.
        for issue in configuration.issues where issue.keyPath.components.first == ATSKey.pinnedDomains.rawValue {
            switch issue.kind {
            case .wrongType(let key, let expected, let found):
                throw PinConfigurationError(.wrongType, source: source, line: line(issue.keyPath),
                                            "\(issue.keyPath) is \(found.kind.withArticle), not \(expected.withArticle)", fix: "Write \(key.rawValue) as \(expected.xmlExample)")
            case .missingKey:
                let spelled = issue.written.map { " (its hash is under '\($0)', which ATS does not read: keys are case-sensitive)" } ?? ""
                throw PinConfigurationError(.missingKey, source: source, line: line(issue.keyPath),
                                            "an identity at \(issue.keyPath) has no SPKI-SHA256-BASE64 string\(spelled)",
                                            fix: "Write each identity as <dict><key>SPKI-SHA256-BASE64</key><string>HASH</string></dict>")
            case .keyAmongDomains(let key, _, let belongsAt, _):
                throw PinConfigurationError(.wrongType, source: source, line: line(issue.keyPath),
                                            "\(issue.keyPath) is \(key.rawValue) written among the pinned domains, where every key names a domain",
                                            fix: "Move \(key.rawValue) into \(belongsAt == .topLevel ? "NSAppTransportSecurity" : "the dictionary of the domain it is for")")
            case .unknownKey, .invalidValue, .duplicateKey, .containerWrongType:
                continue
            }
        }
        var hosts: [PinnedHost] = []
        for entry in configuration.pinnedDomains {
            let at = line(entry.keyPath)
            let pattern: HostPattern
            do { pattern = try HostPattern(entry.name, includeSubdomains: entry.coversSubdomains) } catch { throw error.placed(in: source, line: at) }
            var set = PinSet()
            for identity in (entry.caIdentities ?? []) + (entry.leafIdentities ?? []) {
                set[identity.scope == .leaf ? .leaf : .ca].append(try pin(identity, of: entry.name, source: source, line: at))
            }
            hosts.append(PinnedHost(pattern, set))
        }
        return PinConfiguration(hosts)
    }

    /// The pin as iOS reads it: plain base64 of 32 bytes, exactly as the audit's ATS151 judges it. The general pin
    /// parser would strip an OkHttp or HPKP prefix that iOS keeps, trusting a chain iOS would refuse.
    static func pin(_ identity: PinnedIdentity, of domain: String, source: String, line: Int?) throws(PinConfigurationError) -> Pin {
        let text = identity.base64
        if let prefix = Pin.writtenPrefix(of: text) {
            let written = String(text.prefix(prefix.count))
            if prefix.contains("sha1") {
                throw PinConfigurationError(.wrongHashLength, source: source, line: line,
                    "ATS pins are SHA-256, but \(domain) has a \(written) pin", fix: "Use the SHA-256 hash from `ats pins CERT.pem`")
            }
            throw PinConfigurationError(.malformedPin, source: source, line: line,
                "the SPKI-SHA256-BASE64 of \(domain) starts with '\(written)', a prefix OkHttp and HPKP use; iOS reads the string as plain base64, so this pin never matches",
                fix: "Remove the '\(written)' prefix and keep only the base64 hash")
        }
        if let digest = identity.digest, digest.count == 32 { return .spkiSHA256(Array(digest)) }
        // The general parser words the usual faults (not base64, wrong length); what it would accept, iOS does not.
        do { _ = try Pin(parsing: text) } catch { throw error.placed(in: source, line: line) }
        throw PinConfigurationError(.malformedPin, source: source, line: line,
            "the SPKI-SHA256-BASE64 of \(domain) has spaces or quotes around the hash; iOS reads the string as it is, so this pin never matches",
            fix: "Write only the base64 hash inside <string>")
    }

    static func write(_ configuration: PinConfiguration) -> (text: String, warnings: [PinConfigurationWarning]) {
        var w: [PinConfigurationWarning] = []
        var s = PlistPinFormats.plistHeader + "<dict>\n\t<key>NSAppTransportSecurity</key>\n\t<dict>\n\t\t<key>NSPinnedDomains</key>\n\t\t<dict>\n"
        for host in configuration.hosts {
            if host.isExempt {
                w.append(PinConfigurationWarning(.lossyConversion, "ATS cannot exempt a host from a broader pinned domain; the exemption of \(host.pattern) was left out, so a broader domain's pins apply to it"))
                continue
            }
            if host.pattern.kind == .oneLabel {
                w.append(PinConfigurationWarning(.lossyConversion, "ATS has no one-label wildcard; \(host.pattern) was written as \(host.pattern.name) with NSIncludesSubdomains, which also covers deeper names"))
            }
            if !host.pinSet.enforcePinning { w.append(PinConfigurationWarning(.lossyConversion, "ATS always enforces pins; the report-only set for \(host.pattern) will be enforced")) }
            if host.pinSet.expirationDate != nil { w.append(PinConfigurationWarning(.lossyConversion, "ATS pins do not expire; the expiration date of \(host.pattern) was dropped")) }
            if !host.pinSet.pins.isEmpty {
                w.append(PinConfigurationWarning(.lossyConversion, "ATS has no any-certificate scope; the pins of \(host.pattern) were written as NSPinnedCAIdentities. Move a leaf key's pin to NSPinnedLeafIdentities"))
            }
            s += "\t\t\t<key>\(PlistPinFormats.escape(host.pattern.name))</key>\n\t\t\t<dict>\n"
            if host.pattern.coversSubdomains { s += "\t\t\t\t<key>NSIncludesSubdomains</key>\n\t\t\t\t<true/>\n" }
            let ca = PlistPinFormats.hashes(host.pinSet.pins + host.pinSet.caPins, host: host, format: "ATS", warnings: &w)
            let leaf = PlistPinFormats.hashes(host.pinSet.leafPins, host: host, format: "ATS", warnings: &w)
            for (key, list) in [("NSPinnedCAIdentities", ca), ("NSPinnedLeafIdentities", leaf)] where !list.isEmpty {
                s += "\t\t\t\t<key>\(key)</key>\n\t\t\t\t<array>\n"
                for h in list { s += "\t\t\t\t\t<dict>\n\t\t\t\t\t\t<key>SPKI-SHA256-BASE64</key>\n\t\t\t\t\t\t<string>\(h)</string>\n\t\t\t\t\t</dict>\n" }
                s += "\t\t\t\t</array>\n"
            }
            s += "\t\t\t</dict>\n"
        }
        s += "\t\t</dict>\n\t</dict>\n</dict>\n</plist>\n"
        return (s, w)
    }
}
