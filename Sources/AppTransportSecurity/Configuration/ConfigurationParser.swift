/// Turns a property-list dictionary into an ``ATSConfiguration``, strictly: wrong types and unknown keys
/// become ``ConfigurationIssue``s, never coerced values.
struct ConfigurationParser {
    private var issues: [ConfigurationIssue] = []

    mutating func parse(_ dictionary: [String: PlistValue]) -> ATSConfiguration {
        var config = ATSConfiguration()
        let root = PlistKeyPath([])
        for key in dictionary.keys.sorted() {
            guard let value = dictionary[key] else { continue }
            let path = root.appending(key)
            guard let known = ATSKey(rawValue: key), known.levels.contains(.topLevel) else {
                unknown(key, at: path, level: .topLevel, value: value)
                continue
            }
            config.presentKeys.insert(known)
            switch known {
            case .allowsArbitraryLoads: config.allowsArbitraryLoads = boolean(known, value, path)
            case .allowsArbitraryLoadsForMedia: config.allowsArbitraryLoadsForMedia = boolean(known, value, path)
            case .allowsArbitraryLoadsInWebContent: config.allowsArbitraryLoadsInWebContent = boolean(known, value, path)
            case .allowsLocalNetworking: config.allowsLocalNetworking = boolean(known, value, path)
            case .requiresNIAPTLSPackageVersion: config.requiresNIAPTLSPackageVersion = niap(known, value, path)
            case .exceptionDomains:
                guard let domains = dictionaryValue(known, value, path) else { continue }
                let likely = Self.likelyEntry(domains)
                config.exceptionDomains = domains.keys.sorted().compactMap { name in
                    domains[name].flatMap { exceptionDomain(name, $0, path.appending(name), likely: likely) }
                }
            case .pinnedDomains:
                guard let domains = dictionaryValue(known, value, path) else { continue }
                let likely = Self.likelyEntry(domains)
                config.pinnedDomains = domains.keys.sorted().compactMap { name in
                    domains[name].flatMap { pinnedDomain(name, $0, path.appending(name), likely: likely) }
                }
            default: break
            }
        }
        config.issues = issues
        return config
    }

    private mutating func exceptionDomain(_ name: String, _ value: PlistValue, _ path: PlistKeyPath, likely: String?) -> ExceptionDomain? {
        guard case .dictionary(let dict) = value else {
            notADomain(name, value, path, container: .exceptionDomains, likely: likely)
            return nil
        }
        var entry = ExceptionDomain(name: name, keyPath: path)
        var insecure: [ATSKey: Setting<Bool>] = [:]
        var tls: [ATSKey: Setting<TLSVersion>] = [:]
        var forward: [ATSKey: Setting<Bool>] = [:]
        for key in dict.keys.sorted() {
            guard let v = dict[key] else { continue }
            let p = path.appending(key)
            guard let known = ATSKey(rawValue: key), known.levels.contains(.exceptionDomain) else {
                unknown(key, at: p, level: .exceptionDomain, value: v)
                continue
            }
            if known.modernReplacement != nil { entry.legacyKeys.append(known) }
            switch known {
            case .includesSubdomains: entry.includesSubdomains = boolean(known, v, p)
            case .exceptionAllowsInsecureHTTPLoads, .temporaryExceptionAllowsInsecureHTTPLoads,
                 .thirdPartyExceptionAllowsInsecureHTTPLoads:
                insecure[known] = boolean(known, v, p)
            case .exceptionMinimumTLSVersion, .temporaryExceptionMinimumTLSVersion, .thirdPartyExceptionMinimumTLSVersion:
                tls[known] = tlsVersion(known, v, p)
            case .exceptionRequiresForwardSecrecy, .temporaryExceptionRequiresForwardSecrecy,
                 .thirdPartyExceptionRequiresForwardSecrecy:
                forward[known] = boolean(known, v, p)
            case .requiresCertificateTransparency: entry.requiresCertificateTransparency = boolean(known, v, p)
            case .exceptionRequiresNIAPTLSPackageVersion: entry.requiresNIAPTLSPackageVersion = niap(known, v, p)
            default: break
            }
        }
        let insecureOrder: [ATSKey] = [.exceptionAllowsInsecureHTTPLoads, .temporaryExceptionAllowsInsecureHTTPLoads, .thirdPartyExceptionAllowsInsecureHTTPLoads]
        let tlsOrder: [ATSKey] = [.exceptionMinimumTLSVersion, .temporaryExceptionMinimumTLSVersion, .thirdPartyExceptionMinimumTLSVersion]
        let forwardOrder: [ATSKey] = [.exceptionRequiresForwardSecrecy, .temporaryExceptionRequiresForwardSecrecy, .thirdPartyExceptionRequiresForwardSecrecy]
        entry.allowsInsecureHTTPLoads = insecureOrder.lazy.compactMap { insecure[$0] }.first
        entry.minimumTLSVersion = tlsOrder.lazy.compactMap { tls[$0] }.first
        entry.requiresForwardSecrecy = forwardOrder.lazy.compactMap { forward[$0] }.first
        // What the keys that lost say, where it is riskier than what won.
        func shadowed<V>(_ order: [ATSKey], _ settings: [ATSKey: Setting<V>], _ winner: Setting<V>?, riskier: (V, V) -> Bool, rule: AuditRule,
                         show: (V) -> String) {
            guard let winner else { return }
            for key in order.dropFirst() {
                guard let setting = settings[key], setting.keyPath != winner.keyPath, riskier(setting.value, winner.value) else { continue }
                entry.shadowedRisks.append(.init(legacy: setting.keyPath, value: show(setting.value), winner: winner.key, rule: rule))
            }
        }
        shadowed(insecureOrder, insecure, entry.allowsInsecureHTTPLoads, riskier: { $0 && !$1 }, rule: .insecureHTTPException) { $0 ? "YES" : "NO" }
        shadowed(tlsOrder, tls, entry.minimumTLSVersion, riskier: { $0 < $1 && $0 < .tls12 }, rule: .weakMinimumTLS) { "\($0)" }
        shadowed(forwardOrder, forward, entry.requiresForwardSecrecy, riskier: { !$0 && $1 }, rule: .forwardSecrecyDisabled) { $0 ? "YES" : "NO" }
        return entry
    }

    private mutating func pinnedDomain(_ name: String, _ value: PlistValue, _ path: PlistKeyPath, likely: String?) -> PinnedDomain? {
        guard case .dictionary(let dict) = value else {
            notADomain(name, value, path, container: .pinnedDomains, likely: likely)
            return nil
        }
        var entry = PinnedDomain(name: name, keyPath: path)
        for key in dict.keys.sorted() {
            guard let v = dict[key] else { continue }
            let p = path.appending(key)
            guard let known = ATSKey(rawValue: key), known.levels.contains(.pinnedDomain) else {
                unknown(key, at: p, level: .pinnedDomain, value: v)
                continue
            }
            switch known {
            case .includesSubdomains: entry.includesSubdomains = boolean(known, v, p)
            case .pinnedCAIdentities: entry.caIdentities = identities(known, .certificateAuthority, v, p, unread: &entry.unreadIdentities)
            case .pinnedLeafIdentities: entry.leafIdentities = identities(known, .leaf, v, p, unread: &entry.unreadIdentities)
            default: break
            }
        }
        return entry
    }

    /// The identities that carry a hash; `unread` counts those written without one, which ATS151 reports.
    private mutating func identities(_ key: ATSKey, _ scope: PinnedIdentity.Scope, _ value: PlistValue, _ path: PlistKeyPath,
                                     unread: inout Int) -> [PinnedIdentity]? {
        guard case .array(let items) = value else {
            issues.append(ConfigurationIssue(.wrongType(key: key, expected: .array, found: value), at: path))
            return nil
        }
        var out: [PinnedIdentity] = []
        for (i, item) in items.enumerated() {
            let p = path.appending(String(i))
            guard case .dictionary(let dict) = item else {
                issues.append(ConfigurationIssue(.wrongType(key: key, expected: .dictionary, found: item), at: p))
                continue
            }
            let real = ATSKey.spkiSHA256Base64.rawValue
            var misspelt: String?
            for k in dict.keys.sorted() where k != real {
                // An identity holds one key, so a stranger in an identity without the hash is most likely that
                // key misspelt (SPKI-SHA256-Base64, SPKI-SHA256), even when too far from it for the usual suggestion.
                let upper = k.uppercased()
                let suggested = KeySuggester.suggestion(for: k, among: [real]) != nil
                if dict[real] == nil, misspelt == nil, ATSKey(rawValue: k) == nil,
                   suggested || dict.count == 1 || upper.contains("SPKI") || upper.contains("SHA") {
                    misspelt = k
                } else {
                    unknown(k, at: p.appending(k), level: .pinnedIdentity, value: dict[k])
                }
            }
            guard let hash = dict[real] else {
                // One finding for the identity, ATS151: it has no hash, and here is what was written instead.
                issues.append(ConfigurationIssue(.missingKey(key: .spkiSHA256Base64), at: misspelt.map { p.appending($0) } ?? p, written: misspelt))
                unread += 1
                continue
            }
            let hp = p.appending(ATSKey.spkiSHA256Base64.rawValue)
            guard case .string(let s) = hash else {
                issues.append(ConfigurationIssue(.wrongType(key: .spkiSHA256Base64, expected: .string, found: hash), at: hp))
                continue
            }
            out.append(PinnedIdentity(scope: scope, base64: s))
        }
        return out
    }

    private mutating func boolean(_ key: ATSKey, _ value: PlistValue, _ path: PlistKeyPath) -> Setting<Bool>? {
        guard case .boolean(let b) = value else {
            issues.append(ConfigurationIssue(.wrongType(key: key, expected: .boolean, found: value), at: path))
            return nil
        }
        return Setting(b, at: path)
    }

    private mutating func dictionaryValue(_ key: ATSKey, _ value: PlistValue, _ path: PlistKeyPath) -> [String: PlistValue]? {
        guard case .dictionary(let d) = value else {
            issues.append(ConfigurationIssue(.wrongType(key: key, expected: .dictionary, found: value), at: path))
            return nil
        }
        return d
    }

    private mutating func tlsVersion(_ key: ATSKey, _ value: PlistValue, _ path: PlistKeyPath) -> Setting<TLSVersion>? {
        guard case .string(let s) = value else {
            issues.append(ConfigurationIssue(.wrongType(key: key, expected: .string, found: value), at: path))
            return nil
        }
        guard let version = TLSVersion(rawValue: s) else {
            let suggestion = TLSVersion(loose: s)?.rawValue
            issues.append(ConfigurationIssue(.invalidValue(key: key, value: s, allowed: TLSVersion.allCases.map(\.rawValue),
                                                           suggestion: suggestion), at: path))
            return nil
        }
        return Setting(version, at: path)
    }

    /// NIAP TLS package versions documented for iOS 26.4: `none`, `FCP_v2.1`, `recommended`.
    static let niapValues = ["none", "FCP_v2.1", "recommended"]

    private mutating func niap(_ key: ATSKey, _ value: PlistValue, _ path: PlistKeyPath) -> Setting<String>? {
        guard case .string(let s) = value else {
            issues.append(ConfigurationIssue(.wrongType(key: key, expected: .string, found: value), at: path))
            return nil
        }
        guard Self.niapValues.contains(s) else {
            let suggestion = KeySuggester.suggestion(for: s, among: Self.niapValues)
            issues.append(ConfigurationIssue(.invalidValue(key: key, value: s, allowed: Self.niapValues, suggestion: suggestion), at: path))
            return nil
        }
        return Setting(s, at: path)
    }

    private mutating func unknown(_ key: String, at path: PlistKeyPath, level: ATSKey.Level, value: PlistValue?) {
        let here = ATSKey.keys(at: level).map(\.rawValue)
        if let suggestion = KeySuggester.suggestion(for: key, among: here) {
            issues.append(ConfigurationIssue(.unknownKey(key: key, suggestion: suggestion, belongsAt: nil), at: path, value: value))
            return
        }
        // A real key in the wrong dictionary, or a typo of one.
        if let elsewhere = Self.atsKey(spelled: key) {
            issues.append(ConfigurationIssue(.unknownKey(key: key, suggestion: elsewhere.rawValue, belongsAt: elsewhere.levels.first), at: path, value: value))
            return
        }
        issues.append(ConfigurationIssue(.unknownKey(key: key, suggestion: nil, belongsAt: nil), at: path, value: value))
    }

    /// The ATS key `name` is, or is a typo of; nil for anything else.
    static func atsKey(spelled name: String) -> ATSKey? {
        ATSKey(rawValue: name) ?? KeySuggester.suggestion(for: name, among: ATSKey.allCases.map(\.rawValue)).flatMap(ATSKey.init(rawValue:))
    }

    /// An entry of NSExceptionDomains or NSPinnedDomains that is not a dictionary: an ATS key written among the
    /// domains (a setting meant for a domain, or for NSAppTransportSecurity), or a domain with a value of the wrong type.
    private mutating func notADomain(_ name: String, _ value: PlistValue, _ path: PlistKeyPath, container: ATSKey, likely: String?) {
        // A host name has a dot, or is a single label such as localhost that no ATS key resembles.
        if !name.contains("."), let key = Self.atsKey(spelled: name), let level = key.levels.first, level != .pinnedIdentity {
            issues.append(ConfigurationIssue(.keyAmongDomains(key: key, container: container, belongsAt: level, likelyDomain: likely),
                                             at: path, value: value, written: name))
            return
        }
        issues.append(ConfigurationIssue(.wrongType(key: container, expected: .dictionary, found: value), at: path))
    }

    /// The one entry that is an empty dictionary, if exactly one is: where a key written beside it likely belongs.
    static func likelyEntry(_ domains: [String: PlistValue]) -> String? {
        let empty = domains.filter { if case .dictionary(let d) = $0.value { return d.isEmpty } else { return false } }
        return empty.count == 1 ? empty.first?.key : nil
    }
}
