import Foundation

/// The pin configuration formats this library reads and writes. Any can be converted to any other, so one pin
/// list can serve an iOS app, an Android app and a server. Reading and writing are declared in
/// AppTransportSecurity, which holds the one table of every format's reader and writer.
public enum PinConfigurationFormat: String, Sendable, Hashable, CaseIterable {
    /// An Info.plist (or its `NSAppTransportSecurity` dictionary) with `NSPinnedDomains`.
    case ats
    /// A TrustKit configuration dictionary as an XML property list (`TSKConfiguration`, or the dictionary itself).
    case trustKit = "trustkit"
    /// A TrustKit configuration dictionary as JSON.
    case trustKitJSON = "trustkit-json"
    /// OkHttp `CertificatePinner` lines: `pattern sha256/…`.
    case okhttp
    /// An Android Network Security Config with `<domain-config>` and `<pin-set>`.
    case android

    /// The checks its own system makes, which ``PinConfiguration/validate(now:source:)`` applies to a
    /// configuration read in this format.
    public var rules: PinValidationRules {
        switch self {
        case .ats: return .ats
        case .trustKit, .trustKitJSON: return .trustKit
        case .okhttp: return .okhttp
        case .android: return .android
        }
    }

    /// How its system combines patterns that match the same host: OkHttp applies them all, the others the most
    /// specific.
    package var matching: PinMatching { self == .okhttp ? .everyMatch : .mostSpecific }

    /// The bytes of the pin file at `path`.
    package static func readPinFileBytes(_ path: String) throws(PinConfigurationError) -> [UInt8] {
        let data: Data
        do { data = try InputFile.read(path) } catch {
            throw PinConfigurationError(.malformedDocument, source: InputFile.source(path), "the file cannot be read (\(error.reason))",
                                        fix: "Check the path and its permissions")
        }
        return Array(data)
    }

    /// A warning when `configuration` was read under other matching than this format's: hosts that match two of its
    /// patterns then accept other pins than they did. nil when nothing changes.
    package func matchingWarning(for configuration: PinConfiguration) -> PinConfigurationWarning? {
        guard configuration.matching != matching, let (specific, broader) = configuration.overlappingPatterns() else { return nil }
        return PinConfigurationWarning(.lossyConversion, matching == .everyMatch
            ? "OkHttp applies the pins of every pattern that matches a host: hosts that match both \(specific) and \(broader) will also accept the pins of \(broader)"
            : "OkHttp applied the pins of every pattern that matches a host, \(rawValue) applies the most specific alone: hosts that match both \(specific) and \(broader) no longer accept the pins of \(broader)")
    }

    /// Recognises the format by its structure, not by words anywhere in it: JSON opens with `{`, a binary property
    /// list with `bplist`, and XML is told by its root element, found past the prolog, comments, processing
    /// instructions and doctype however long they are. Anything else is OkHttp text, whose comments may mention
    /// any format. Property lists with a `TSKPinnedDomains` key are TrustKit, others ATS.
    public static func detect(_ bytes: [UInt8]) -> PinConfigurationFormat {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < bytes.count, isXMLSpace(bytes[i]) { i += 1 }
        if bytes[i...].starts(with: Array("bplist".utf8)) {
            return String(decoding: bytes, as: UTF8.self).contains("TSKPinnedDomains") ? .trustKit : .ats
        }
        guard i < bytes.count else { return .okhttp }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            return .trustKitJSON
        case UInt8(ascii: "["):
            // JSON of the wrong shape, to be refused as such; no OkHttp pattern starts with a bracket.
            return .trustKitJSON
        case UInt8(ascii: "<"):
            if xmlRootElement(bytes, from: i) == "network-security-config" { return .android }
            return String(decoding: bytes, as: UTF8.self).contains("<key>TSKPinnedDomains</key>") ? .trustKit : .ats
        default:
            let rest = String(decoding: bytes[i...], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return ["null", "true", "false"].contains(rest) ? .trustKitJSON : .okhttp
        }
    }

    private static func isXMLSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// The name of the first element of an XML document, skipping the declaration, processing instructions,
    /// comments and a doctype (with its internal subset). nil when there is none.
    static func xmlRootElement(_ b: [UInt8], from start: Int) -> String? {
        func find(_ needle: String, from: Int) -> Int? {
            let n = Array(needle.utf8)
            guard n.count <= b.count else { return nil }
            var j = from
            while j + n.count <= b.count {
                if b[j] == n[0] && b[j..<(j + n.count)].elementsEqual(n) { return j + n.count }
                j += 1
            }
            return nil
        }
        var i = start
        while i < b.count {
            while i < b.count, isXMLSpace(b[i]) { i += 1 }
            guard i < b.count, b[i] == UInt8(ascii: "<") else { return nil }
            let rest = b[i...]
            if rest.starts(with: Array("<?".utf8)) {
                guard let end = find("?>", from: i + 2) else { return nil }
                i = end
            } else if rest.starts(with: Array("<!--".utf8)) {
                guard let end = find("-->", from: i + 4) else { return nil }
                i = end
            } else if rest.starts(with: Array("<!".utf8)) {
                // <!DOCTYPE …>, possibly with an internal subset in brackets.
                var j = i + 2, depth = 0
                while j < b.count, !(b[j] == UInt8(ascii: ">") && depth == 0) {
                    if b[j] == UInt8(ascii: "[") { depth += 1 } else if b[j] == UInt8(ascii: "]") { depth = max(0, depth - 1) }
                    j += 1
                }
                i = j + 1
            } else {
                let name = b[(i + 1)...].prefix { !isXMLSpace($0) && $0 != UInt8(ascii: ">") && $0 != UInt8(ascii: "/") }
                return String(decoding: name, as: UTF8.self)
            }
        }
        return nil
    }
}
