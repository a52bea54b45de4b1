/// Builds findings for one source, filling in file, domain and line/column from the key path.
struct FindingCollector {
    let source: ConfigurationSource
    private(set) var findings: [Finding] = []

    init(source: ConfigurationSource) { self.source = source }

    mutating func add(_ rule: AuditRule, _ keyPath: PlistKeyPath, severity: Severity? = nil, domain: String? = nil,
                      key: String? = nil, message: String, fix: String, rootRelative: Bool = false, at position: SourceLocation? = nil) {
        let domainName = domain ?? Self.domain(in: keyPath)
        let location = position ?? (rootRelative ? source.rootLocation(of: keyPath) : source.location(of: keyPath))
        findings.append(Finding(rule: rule, severity: severity, file: source.inputPath, member: source.memberPath,
                                memberInArchive: source.memberIsInArchive, domain: domainName,
                                key: key ?? keyPath.last, keyPath: rootRelative ? keyPath : keyPath, message: message, fix: fix,
                                location: location))
    }

    /// The domain a path is about: `NSExceptionDomains › example.com › …` → `example.com`.
    static func domain(in keyPath: PlistKeyPath) -> String? {
        let c = keyPath.components
        guard c.count >= 2, c[0] == ATSKey.exceptionDomains.rawValue || c[0] == ATSKey.pinnedDomains.rawValue else { return nil }
        return c[1]
    }

    mutating func containerIssue(_ issue: ConfigurationIssue) {
        switch issue.kind {
        case .containerWrongType(let found):
            add(.configurationNotDictionary, PlistKeyPath(["NSAppTransportSecurity"]), key: "NSAppTransportSecurity",
                message: "NSAppTransportSecurity is \(found.snippet), not a dictionary, so none of its settings apply",
                fix: "Make NSAppTransportSecurity a <dict> holding the ATS keys", rootRelative: true)
        case .unknownKey(let key, _, let belongsAt?):
            let place = belongsAt == .topLevel ? "NSAppTransportSecurity" : "\(belongsAt.rawValue) inside NSAppTransportSecurity"
            let effect = ATSKey(rawValue: key)?.loosening(issue.value)
            add(.misplacedKey, issue.keyPath, key: key,
                message: "\(key) is at the root of the Info.plist, where ATS does not read it; it belongs in \(place), and here it has no effect",
                fix: effect.map { Self.safeFirst(remove: "Remove \(key) from the root", because: "where it is it has no effect",
                                                 action: "Moving it into \(place)", effect: $0) } ?? "Move \(key) into \(place)",
                rootRelative: true)
        case .unknownKey(let key, let suggestion, nil):
            add(.unknownKey, issue.keyPath, severity: .medium, key: key,
                message: "\(key) is not an Info.plist key ATS reads → did you mean \(suggestion ?? "NSAppTransportSecurity")?",
                fix: "Rename \(key) to \(suggestion ?? "NSAppTransportSecurity")", rootRelative: true)
        case .duplicateKey(let key, let ignoredCopy):
            add(.duplicateKey, issue.keyPath, key: key, message: "\(key) is written more than once; this copy is ignored and only the last takes effect",
                fix: "Merge the copies into the last one and delete this one", rootRelative: true, at: ignoredCopy)
        default:
            break
        }
    }

    mutating func issue(_ issue: ConfigurationIssue) {
        let path = issue.keyPath
        switch issue.kind {
        case .wrongType(let key, let expected, let found):
            wrongType(key, expected: expected, found: found, at: path)
        case .unknownKey(let key, let suggestion, let belongsAt):
            unknownKey(key, suggestion: suggestion, belongsAt: belongsAt, value: issue.value, at: path)
        case .invalidValue(let key, let value, let allowed, let suggestion):
            // As for a Boolean of the wrong type: a reader looser than this tool's may take 'tlsv1.0' for TLS 1.0.
            let weak = suggestion == "TLSv1.0" || suggestion == "TLSv1.1"
            add(.invalidValue, path, severity: weak ? .high : nil, key: key.rawValue,
                message: "\(key.rawValue) is '\(value)', which is not one of \(allowed.joined(separator: ", "))\(suggestion.map { " → did you mean \($0)?" } ?? "")",
                fix: "Write one of: \(allowed.joined(separator: ", "))")
        case .duplicateKey(let key, let ignoredCopy):
            add(.duplicateKey, path, key: key, message: "\(key) is written more than once in the same dictionary; this copy is ignored and only the last takes effect",
                fix: "Keep the copy of \(key) you mean as the only one and delete the others", at: ignoredCopy)
        case .missingKey(let key):
            missingKey(key, written: issue.written, at: path)
        case .keyAmongDomains(let key, let container, let belongsAt, let likely):
            keyAmongDomains(key, container: container, belongsAt: belongsAt, likely: likely, issue: issue)
        case .containerWrongType:
            containerIssue(issue)
        }
    }

    private mutating func wrongType(_ key: ATSKey, expected: PlistKind, found: PlistValue, at path: PlistKeyPath) {
        let intended = Self.intendedBoolean(found)
        var severity = Severity.medium
        if expected == .boolean, let intended, Self.isDangerous(key, meant: intended) { severity = .high }
        let written = path.last == key.rawValue ? key.rawValue : "\(key.rawValue) item"
        var fix = expected == .boolean && intended != nil ? "Write \(intended == true ? "<true/>" : "<false/>") instead of \(found.snippet)" : "Write the value as \(expected.xmlExample)"
        // Writing the Boolean it was meant as would switch the risky setting on for certain: the safe fix comes first.
        if expected == .boolean, let effect = key.loosening(found) {
            fix = Self.safeFirst(remove: "Remove \(key.rawValue) (or write \(intended == true ? "<false/>" : "<true/>"))",
                                 because: "a loose reader may take \(found.snippet) as \(intended == true ? "YES" : "NO") while this tool reads it as not set",
                                 action: "Writing \(intended == true ? "<true/>" : "<false/>")", effect: effect)
        }
        add(.wrongType, path, severity: severity, key: key.rawValue,
            message: "\(written) must be a \(expected) (\(expected.xmlExample)) but is \(found.snippet); it is not read as \(expected == .boolean ? "a Boolean" : "intended") and the default (\(key.defaultValue)) applies in this tool's model",
            fix: fix)
        if expected == .boolean, intended == false, Self.forwardSecrecyKeys.contains(key) {
            add(.forwardSecrecyDisabled, path, key: key.rawValue,
                message: "\(key.rawValue) is \(found.snippet): meant as NO, it disables forward secrecy wherever the value is read loosely",
                fix: "Enable ECDHE suites on the server and remove the key")
        }
    }

    private static let forwardSecrecyKeys: [ATSKey] = [.exceptionRequiresForwardSecrecy, .temporaryExceptionRequiresForwardSecrecy,
                                                       .thirdPartyExceptionRequiresForwardSecrecy]

    /// Whether a mistyped Boolean, read loosely as it was meant, would loosen ATS: YES for most keys, NO for forward
    /// secrecy; never for the keys that only widen or tighten a scope.
    private static func isDangerous(_ key: ATSKey, meant intended: Bool) -> Bool {
        switch key {
        case .exceptionRequiresForwardSecrecy, .temporaryExceptionRequiresForwardSecrecy, .thirdPartyExceptionRequiresForwardSecrecy:
            return !intended
        case .includesSubdomains, .requiresCertificateTransparency:
            return false
        default:
            return intended
        }
    }

    private mutating func unknownKey(_ key: String, suggestion: String?, belongsAt: ATSKey.Level?, value: PlistValue?, at path: PlistKeyPath) {
        let effect = suggestion.flatMap(ATSKey.init(rawValue:))?.loosening(value)
        if let belongsAt, let suggestion {
            let exact = key == suggestion
            let move = "Move \(suggestion) into \(belongsAt.rawValue)"
            add(.misplacedKey, path, key: key,
                message: exact ? "\(key) belongs in \(belongsAt.rawValue), not here; here it has no effect"
                    : "\(key) is not an ATS key here → did you mean \(suggestion)? It belongs in \(belongsAt.rawValue)",
                fix: effect.map { Self.safeFirst(remove: "Remove \(key)", because: "where it is it has no effect",
                                                 action: "Moving \(suggestion) into \(belongsAt.rawValue)", effect: $0) } ?? move)
        } else if let suggestion {
            let rename = "Rename \(key) to \(suggestion)"
            add(.unknownKey, path, severity: .medium, key: key,
                message: "\(key) is not an ATS key → did you mean \(suggestion)? As written it has no effect",
                fix: effect.map { Self.safeFirst(remove: "Remove \(key)", because: "as written it has no effect", action: "Renaming it to \(suggestion)", effect: $0) } ?? rename)
        } else {
            add(.unknownKey, path, key: key, message: "\(key) is not an ATS key; it has no effect",
                fix: "Remove \(key), or check Apple's list of NSAppTransportSecurity keys")
        }
    }

    private mutating func missingKey(_ key: ATSKey, written: String?, at path: PlistKeyPath) {
        if let written {
            // Keys are case-sensitive: SPKI-SHA256-Base64 is not read, so the identity holds no pin.
            add(.malformedPin, path, key: written,
                message: "this identity has no \(key.rawValue): its hash is under '\(written)' → did you mean \(key.rawValue)? ATS does not read '\(written)' (keys are case-sensitive), so the identity is no pin and can never match",
                fix: "Rename \(written) to \(key.rawValue)")
        } else {
            add(.malformedPin, path, key: key.rawValue,
                message: "\(path) has no \(key.rawValue), so this identity is no pin and can never match",
                fix: "Add <key>\(key.rawValue)</key><string>…</string> (the base64 SHA-256 of the SubjectPublicKeyInfo), or remove the empty identity")
        }
    }

    private mutating func keyAmongDomains(_ key: ATSKey, container: ATSKey, belongsAt: ATSKey.Level, likely: String?, issue: ConfigurationIssue) {
        let written = issue.written ?? key.rawValue
        let spelled = written == key.rawValue ? key.rawValue : "\(written) (did you mean \(key.rawValue)?)"
        let target: String
        if belongsAt == .topLevel {
            target = "NSAppTransportSecurity itself"
        } else if let likely {
            target = "the dictionary of \(likely) (the one empty entry of \(container.rawValue))"
        } else {
            target = "the dictionary of the domain it is for"
        }
        let move = "Move \(key.rawValue) into \(target)"
        let moving = "Moving \(key.rawValue) into \(target)"
        add(.misplacedKey, issue.keyPath, key: written,
            message: "\(spelled) is written directly inside \(container.rawValue), where every key names a domain; it belongs in \(belongsAt == .topLevel ? "NSAppTransportSecurity" : belongsAt.rawValue)\(likely.map { " (likely \($0), whose entry is empty)" } ?? ""), and where it is it has no effect",
            fix: key.loosening(issue.value).map { Self.safeFirst(remove: "Remove \(written)", because: "where it is it has no effect", action: moving, effect: $0) } ?? move)
    }

    /// Advice for a key whose correction would loosen ATS: the safe step first, then what the correction would turn on.
    static func safeFirst(remove: String, because: String, action: String, effect: String) -> String {
        "\(remove): that is the safe fix, since \(because). \(action) would \(effect): do that only if it is really wanted"
    }

    /// What a mistyped Boolean was meant to say: `<string>NO</string>`, `<integer>0</integer>` → false.
    static func intendedBoolean(_ value: PlistValue) -> Bool? {
        switch value {
        case .string(let s):
            switch s.lowercased().trimmingCharacters(in: .whitespaces) {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        case .integer(let i): return i != 0
        case .real(let d): return d != 0
        default: return nil
        }
    }
}

import Foundation
