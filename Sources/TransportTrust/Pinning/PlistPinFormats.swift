import Foundation

/// TrustKit configurations as an XML or binary property list (`TSKConfiguration`, or the dictionary itself).
package enum TrustKitPlistPinFormat: PinFileCodec {
    package static func read(_ bytes: [UInt8], source: String) throws(PinConfigurationError)
        -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning]) {
        try PlistPinFormats.readTrustKit(bytes, source: source, json: false)
    }

    package static func write(_ configuration: PinConfiguration) -> (text: String, warnings: [PinConfigurationWarning]) {
        PlistPinFormats.writeTrustKit(configuration, json: false)
    }
}

/// TrustKit configurations as JSON.
package enum TrustKitJSONPinFormat: PinFileCodec {
    package static func read(_ bytes: [UInt8], source: String) throws(PinConfigurationError)
        -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning]) {
        try PlistPinFormats.readTrustKit(bytes, source: source, json: true)
    }

    package static func write(_ configuration: PinConfiguration) -> (text: String, warnings: [PinConfigurationWarning]) {
        PlistPinFormats.writeTrustKit(configuration, json: true)
    }
}

/// What the property-list formats share: TrustKit's reading and writing, and the plist text the ATS writer
/// (AppTransportSecurity's `ATSPinFile`) uses too.
package enum PlistPinFormats {
    // MARK: Reading

    static func object(_ bytes: [UInt8], source: String, json: Bool) throws(PinConfigurationError) -> [String: Any] {
        if !json && bytes.starts(with: Array("bplist".utf8)) {
            // Foundation's binary reader on Linux crashes on some structures (a set with members); refuse them first.
            do { try BinaryPlistValidator(bytes: bytes).validate() } catch {
                let reason: String
                switch error {
                case .corruptBinary(let why): reason = why
                case .tooDeep(let limit): reason = "it nests deeper than \(limit) levels"
                }
                throw PinConfigurationError(.malformedDocument, source: source, "the binary property list cannot be read safely: \(reason)",
                    fix: "Re-export it with `plutil -convert binary1` or as XML")
            }
        }
        let any: Any
        do {
            if json {
                any = try JSONSerialization.jsonObject(with: Data(bytes))
            } else {
                any = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
            }
        } catch {
            // Foundation's own text ("The data is not in the correct format.") says neither what nor where.
            var line: Int?
            let problem: String
            if json {
                if let found = DocumentProblem.json(bytes) {
                    (line, problem) = (found.line, found.problem)
                } else if let place = DocumentProblem.jsonPlace(error) {
                    (line, problem) = (place.line, "at column \(place.column) there is something JSON does not allow (a missing comma or quote, a trailing comma, a comment?)")
                } else {
                    problem = "it does not follow JSON's syntax"
                }
            } else if bytes.starts(with: Array("bplist".utf8)) {
                problem = "the binary property list is damaged or cut short"
            } else if let found = DocumentProblem.xml(bytes) {
                (line, problem) = (found.line, found.problem)
            } else {
                problem = "its XML is well-formed but it is not a property list (check the <plist> root and the element names)"
            }
            throw PinConfigurationError(.malformedDocument, source: source, line: line,
                "the file is not a valid \(json ? "JSON document" : "property list"): \(problem)",
                fix: json ? "Fix it at that place, or check it with a JSON validator; if it was cut off, copy it again in full"
                          : "Fix it at that place, or check it with `plutil -lint`; if it was cut off, copy it again in full")
        }
        guard let dict = any as? [String: Any] else {
            throw PinConfigurationError(.malformedDocument, source: source, "the top level is not a dictionary", fix: "Wrap the configuration in a dictionary")
        }
        return dict
    }

    /// The 1-based line of `<key>name</key>` (or `"name"` in JSON) in `bytes`, when it appears on one line only.
    static func line(of key: String, in bytes: [UInt8]) -> Int? { KeyLines(bytes).line(of: key) }

    /// Where each `<key>name</key>` and `"name"` of a document stands, found in one pass: a file names thousands of
    /// domains, and searching the whole file for each one made reading it quadratic (a 330 KB file took minutes).
    struct KeyLines {
        /// The line of each name, or 0 when it is on several lines.
        private var lines: [Substring: Int] = [:]

        init(_ bytes: [UInt8]) {
            let text = String(decoding: bytes, as: UTF8.self)
            for (index, line) in text.lines.enumerated() {
                var names = Set<Substring>()
                var rest = line[...]
                while let open = rest.firstIndex(of: "\""), case let after = rest[rest.index(after: open)...],
                      let close = after.firstIndex(of: "\"") {
                    names.insert(Substring(after[..<close]))
                    rest = after[after.index(after: close)...]
                }
                rest = line[...]
                while let open = rest.range(of: "<key>"), let close = rest[open.upperBound...].range(of: "</key>") {
                    names.insert(Substring(rest[open.upperBound..<close.lowerBound]))
                    rest = rest[close.upperBound...]
                }
                for name in names { lines[name] = lines[name] == nil ? index + 1 : 0 }
            }
        }

        func line(of key: String) -> Int? { lines[Substring(key)].flatMap { $0 == 0 ? nil : $0 } }
    }

    static func isBoolean(_ any: Any) -> Bool {
        if type(of: any) == Bool.self { return true }
        #if canImport(Darwin)
        if let n = any as? NSNumber { return CFGetTypeID(n) == CFBooleanGetTypeID() }
        #else
        if let n = any as? NSNumber, type(of: any) != Int.self { return String(cString: n.objCType) == "c" }
        #endif
        return false
    }

    static func bool(_ value: Any?, key: String, domain: String, source: String, bytes: [UInt8]) throws(PinConfigurationError) -> Bool? {
        guard let value else { return nil }
        guard isBoolean(value), let b = value as? Bool else {
            throw PinConfigurationError(.wrongType, source: source, line: line(of: key, in: bytes),
                "\(key) for \(domain) is \(type(of: value)), not a Boolean", fix: "Write <true/> or <false/> (true or false in JSON)")
        }
        return b
    }

    /// TrustKit's `kTSKExcludeSubdomainFromParentPolicy`: its string value first, then the spelling its name and
    /// documentation suggest.
    static let excludeKeys = ["kSKExcludeSubdomainFromParentPolicy", "TSKExcludeSubdomainFromParentPolicy"]

    static func readTrustKit(_ bytes: [UInt8], source: String, json: Bool) throws(PinConfigurationError) -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning]) {
        var root = try object(bytes, source: source, json: json)
        if let inner = root["TSKConfiguration"] as? [String: Any] { root = inner }
        guard let domainsAny = root["TSKPinnedDomains"] else {
            throw PinConfigurationError(.missingKey, source: source, "there is no TSKPinnedDomains dictionary",
                fix: "Put the pins under TSKPinnedDomains → DOMAIN → TSKPublicKeyHashes")
        }
        guard let domains = domainsAny as? [String: Any] else {
            throw PinConfigurationError(.wrongType, source: source, line: line(of: "TSKPinnedDomains", in: bytes),
                "TSKPinnedDomains is not a dictionary", fix: "Make TSKPinnedDomains a dictionary keyed by domain")
        }
        var hosts: [PinnedHost] = []
        var warnings: [PinConfigurationWarning] = []
        let keyLines = KeyLines(bytes)
        for (domain, value) in domains.sorted(by: { $0.key < $1.key }) {
            let at = keyLines.line(of: domain)
            if domain.contains("*") {
                warnings.append(PinConfigurationWarning(.differsFromSource, source: source, line: at,
                    "TrustKit has no wildcards: it compares '\(NameDisplay.escaped(domain))' with host names as written, so this entry pins no host; write the parent domain with TSKIncludeSubdomains"))
            }
            guard let entry = value as? [String: Any] else {
                throw PinConfigurationError(.wrongType, source: source, line: at, "the TSKPinnedDomains entry for \(domain) is not a dictionary",
                    fix: "Make it a dictionary with TSKPublicKeyHashes")
            }
            if let key = excludeKeys.first(where: { entry[$0] != nil }),
               try bool(entry[key], key: key, domain: domain, source: source, bytes: bytes) == true {
                hosts.append(try trustKitExemption(domain, entry: entry, key: key, source: source, keyLines: keyLines, at: at, warnings: &warnings))
            } else {
                hosts.append(try trustKitPins(domain, entry: entry, source: source, bytes: bytes, at: at))
            }
        }
        for host in hosts {
            if let warning = registrableDomainWarning(host.pattern, source: source, at: keyLines.line(of: host.pattern.name)) {
                warnings.append(warning)
            }
        }
        return (PinConfiguration(hosts), warnings)
    }

    /// TrustKit raises "initialized with an invalid domain" at start-up for a domain whose GetRegistryLength is 0:
    /// `localhost`, `co.uk`, `api.internal`, `example.test`. The pins still work here (a local test server, a CI
    /// check), so it is a warning that the app itself would not start; includeSubdomains on a public suffix is left
    /// to validation, which refuses it.
    static func registrableDomainWarning(_ pattern: HostPattern, source: String, at: Int?) -> PinConfigurationWarning? {
        if pattern.coversSubdomains && PublicSuffixList.isPublicSuffix(pattern.name) { return nil }
        guard !PublicSuffixList.hasRegistrableDomain(pattern.name) else { return nil }
        return PinConfigurationWarning(.differsFromSource, source: source, line: at,
            "\(pattern.name) has no registrable domain under a suffix the Public Suffix List names (it is a public suffix, a single label, an address, or under an unknown top-level name), so TrustKit itself refuses it at start-up (\"TrustKit was initialized with an invalid domain\"); the pins are read here, but an app with this configuration would not start. Pin the name your app connects to, such as api.example.com")
    }

    /// A TrustKit domain excluded from its parent's policy: not pinned, and allowed no other key.
    private static func trustKitExemption(_ domain: String, entry: [String: Any], key: String, source: String, keyLines: KeyLines, at: Int?,
                                          warnings: inout [PinConfigurationWarning]) throws(PinConfigurationError) -> PinnedHost {
        // TrustKit: the domain is not pinned (DomainNotPinned), and the entry may hold nothing else.
        guard entry.count == 1 else {
            throw PinConfigurationError(.malformedDocument, source: source, line: at,
                "\(domain) sets \(key), which allows no other key, but also has \(entry.keys.filter { $0 != key }.sorted().joined(separator: ", "))",
                fix: "Remove the other keys: an excluded domain is not pinned, so it has no hashes or settings")
        }
        let pattern: HostPattern
        if domain.contains("*") {
            pattern = .literal(domain, includeSubdomains: false)
        } else {
            do { pattern = try HostPattern(domain) } catch { throw error.placed(in: source, line: at) }
        }
        if key != excludeKeys[0] {
            warnings.append(PinConfigurationWarning(.differsFromSource, source: source, line: keyLines.line(of: key),
                "TrustKit reads kTSKExcludeSubdomainFromParentPolicy under the key '\(excludeKeys[0])' (the constant's string value), not '\(key)'; TrustKit itself would ignore '\(key)' and refuse \(domain) for having no pins"))
        }
        return .exempt(pattern)
    }

    /// A TrustKit domain's pins and settings.
    private static func trustKitPins(_ domain: String, entry: [String: Any], source: String, bytes: [UInt8], at: Int?) throws(PinConfigurationError) -> PinnedHost {
    let include = try bool(entry["TSKIncludeSubdomains"], key: "TSKIncludeSubdomains", domain: domain, source: source, bytes: bytes) ?? false
    let enforce = try bool(entry["TSKEnforcePinning"], key: "TSKEnforcePinning", domain: domain, source: source, bytes: bytes) ?? true
    let pattern: HostPattern
    if domain.contains("*") {
        pattern = .literal(domain, includeSubdomains: include)
    } else {
        do { pattern = try HostPattern(domain, includeSubdomains: include) } catch { throw error.placed(in: source, line: at) }
    }
    guard let hashes = entry["TSKPublicKeyHashes"] as? [Any] else {
        throw PinConfigurationError(.missingKey, source: source, line: at, "\(domain) has no TSKPublicKeyHashes array",
            fix: "Add TSKPublicKeyHashes with the base64 SPKI SHA-256 of your key and of a backup key")
    }
    var pins: [Pin] = []
    for h in hashes {
        guard let text = h as? String else {
            throw PinConfigurationError(.wrongType, source: source, line: line(of: "TSKPublicKeyHashes", in: bytes),
                "a TSKPublicKeyHashes entry for \(domain) is not a string", fix: "Write each hash as a base64 string")
        }
        do { pins.append(try Pin(bareSHA256: text, system: "TrustKit")) } catch {
            throw error.placed(in: source, line: Self.line(of: text, in: bytes) ?? at)
        }
    }
    var expiry: Date?
    if let e = entry["TSKExpirationDate"] {
        guard let text = e as? String, let d = PinDates.parseDay(text) else {
            throw PinConfigurationError(.wrongType, source: source, line: line(of: "TSKExpirationDate", in: bytes),
                "TSKExpirationDate for \(domain) is not a yyyy-MM-dd date", fix: "Write it like 2027-01-31")
        }
        expiry = d
    }
    var uris: [String] = []
    if let u = entry["TSKReportUris"] {
        guard let list = u as? [String] else {
            throw PinConfigurationError(.wrongType, source: source, line: line(of: "TSKReportUris", in: bytes),
                "TSKReportUris for \(domain) is not an array of strings", fix: "Write it as an array of https URLs")
        }
        uris = list
    }
        return PinnedHost(pattern, PinSet(pins, scope: .any, enforcePinning: enforce, expirationDate: expiry, reportURIs: uris))
    }

    // MARK: Writing

    /// SPKI SHA-256 base64 of each pin; SHA-1 pins cannot be converted and are reported.
    package static func hashes(_ pins: [Pin], host: PinnedHost, format: String, warnings: inout [PinConfigurationWarning]) -> [String] {
        pins.compactMap { pin in
            guard let b = pin.asSPKISHA256?.base64 else {
                warnings.append(PinConfigurationWarning(.lossyConversion, "\(pin) for \(host.pattern) cannot be written as \(format) (it needs SHA-256) and was left out"))
                return nil
            }
            return b
        }
    }

    package static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }

    package static let plistHeader = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    static func writeTrustKit(_ configuration: PinConfiguration, json: Bool) -> (text: String, warnings: [PinConfigurationWarning]) {
        var w: [PinConfigurationWarning] = []
        var domains: [(String, [(String, String)])] = []  // domain → ordered (key, rendered value)
        for host in configuration.hosts {
            func bool(_ b: Bool) -> String { json ? (b ? "true" : "false") : (b ? "<true/>" : "<false/>") }
            if host.isExempt {
                if host.pattern.coversSubdomains {
                    w.append(PinConfigurationWarning(.lossyConversion, "TrustKit exempts exact names only; the exemption of \(host.pattern) was written for \(host.pattern.name) alone"))
                }
                domains.append((host.pattern.name, [(excludeKeys[0], bool(true))]))
                continue
            }
            if host.pattern.kind == .oneLabel {
                w.append(PinConfigurationWarning(.lossyConversion, "TrustKit has no one-label wildcard; \(host.pattern) was written as \(host.pattern.name) with TSKIncludeSubdomains"))
            }
            if !host.pinSet.caPins.isEmpty || !host.pinSet.leafPins.isEmpty {
                w.append(PinConfigurationWarning(.lossyConversion, "TrustKit pins match any certificate; the CA and leaf scopes of \(host.pattern) were merged"))
            }
            let hs = hashes(host.pinSet.allPins, host: host, format: "TrustKit", warnings: &w)
            var entry: [(String, String)] = []
            func list(_ items: [String]) -> String {
                json ? "[" + items.map { "\"\(Self.jsonEscape($0))\"" }.joined(separator: ", ") + "]"
                     : "<array>" + items.map { "<string>\(escape($0))</string>" }.joined() + "</array>"
            }
            func string(_ t: String) -> String { json ? "\"\(Self.jsonEscape(t))\"" : "<string>\(escape(t))</string>" }
            entry.append(("TSKEnforcePinning", bool(host.pinSet.enforcePinning)))
            if let e = host.pinSet.expirationDate { entry.append(("TSKExpirationDate", string(RFC3339.day(e)))) }
            entry.append(("TSKIncludeSubdomains", bool(host.pattern.coversSubdomains)))
            entry.append(("TSKPublicKeyHashes", list(hs)))
            if !host.pinSet.reportURIs.isEmpty { entry.append(("TSKReportUris", list(host.pinSet.reportURIs))) }
            domains.append((host.pattern.name, entry))
        }
        if json {
            var s = "{\n  \"TSKSwizzleNetworkDelegates\": false,\n  \"TSKPinnedDomains\": {"
            s += domains.map { d in
                "\n    \"\(jsonEscape(d.0))\": {\n" + d.1.map { "      \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n    }"
            }.joined(separator: ",")
            s += domains.isEmpty ? "}\n}\n" : "\n  }\n}\n"
            return (s, w)
        }
        var s = plistHeader + "<dict>\n\t<key>TSKConfiguration</key>\n\t<dict>\n\t\t<key>TSKSwizzleNetworkDelegates</key>\n\t\t<false/>\n\t\t<key>TSKPinnedDomains</key>\n\t\t<dict>\n"
        for (domain, entry) in domains {
            s += "\t\t\t<key>\(escape(domain))</key>\n\t\t\t<dict>\n"
            for (k, v) in entry { s += "\t\t\t\t<key>\(k)</key>\n\t\t\t\t\(v)\n" }
            s += "\t\t\t</dict>\n"
        }
        s += "\t\t</dict>\n\t</dict>\n</dict>\n</plist>\n"
        return (s, w)
    }

    static func jsonEscape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if c.value < 0x20 { out += String(format: "\\u%04x", c.value) } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }
}
