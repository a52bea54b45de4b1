/// One audit finding: which rule, how severe, where, and how to fix it.
public struct Finding: Sendable, Equatable, Codable {
    /// The rule that found it.
    public var rule: AuditRule
    /// How much the configuration loosens ATS here: the rule's default, or lower where the entry matters less (a
    /// loopback host, an entry the release ignores).
    public var severity: Severity
    /// The file given on the command line.
    public var file: String
    /// The plist inside an .ipa or .app, when the input was one.
    public var member: String?
    /// Whether ``member`` is inside an archive (.ipa), so that ``location`` is not a line of any file on disk.
    public var memberInArchive: Bool
    /// The exception or pinned domain concerned, when the finding is about one.
    public var domain: String?
    /// The key concerned, e.g. `NSExceptionMinimumTLSVersion`.
    public var key: String?
    /// The full path of the key from `NSAppTransportSecurity`.
    public var keyPath: PlistKeyPath?
    /// What is wrong, in words, naming the key and the domain.
    public var message: String
    /// What to change, the safe change first: never one that switches a risky setting on.
    public var fix: String
    /// Line and column in an XML plist.
    public var location: SourceLocation?

    /// The rule's stable id, e.g. `ATS110`.
    public var ruleId: String { rule.id }

    enum CodingKeys: String, CodingKey {
        case ruleId, ruleName, severity, file, member, memberInArchive, domain, key, keyPath, message, fix, line, column
    }

    package init(rule: AuditRule, severity: Severity? = nil, file: String, member: String?, memberInArchive: Bool = false, domain: String?,
                key: String?, keyPath: PlistKeyPath?, message: String, fix: String, location: SourceLocation?) {
        self.rule = rule
        self.severity = severity ?? rule.defaultSeverity
        self.file = file
        self.member = member
        self.memberInArchive = member != nil && memberInArchive
        self.domain = domain
        self.key = key
        self.keyPath = keyPath
        self.message = message
        self.fix = fix
        self.location = location
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rule.id, forKey: .ruleId)
        try c.encode(rule.name, forKey: .ruleName)
        try c.encode(severity, forKey: .severity)
        try c.encode(file, forKey: .file)
        try c.encodeIfPresent(member, forKey: .member)
        if member != nil { try c.encode(memberInArchive, forKey: .memberInArchive) }
        try c.encodeIfPresent(domain, forKey: .domain)
        try c.encodeIfPresent(key, forKey: .key)
        try c.encodeIfPresent(keyPath?.description, forKey: .keyPath)
        try c.encode(message, forKey: .message)
        try c.encode(fix, forKey: .fix)
        try c.encodeIfPresent(location?.line, forKey: .line)
        try c.encodeIfPresent(location?.column, forKey: .column)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let id = try c.decode(String.self, forKey: .ruleId)
        guard let rule = AuditRule(rawValue: id) else {
            throw DecodingError.dataCorruptedError(forKey: .ruleId, in: c, debugDescription: "unknown rule id \(id)")
        }
        self.rule = rule
        severity = try c.decode(Severity.self, forKey: .severity)
        file = try c.decode(String.self, forKey: .file)
        member = try c.decodeIfPresent(String.self, forKey: .member)
        let archived = try c.decodeIfPresent(Bool.self, forKey: .memberInArchive) ?? false
        memberInArchive = member != nil && archived
        domain = try c.decodeIfPresent(String.self, forKey: .domain)
        key = try c.decodeIfPresent(String.self, forKey: .key)
        keyPath = try c.decodeIfPresent(String.self, forKey: .keyPath).map { PlistKeyPath($0.components(separatedBy: " › ")) }
        message = try c.decode(String.self, forKey: .message)
        fix = try c.decode(String.self, forKey: .fix)
        if let line = try c.decodeIfPresent(Int.self, forKey: .line) {
            location = SourceLocation(line: line, column: try c.decodeIfPresent(Int.self, forKey: .column) ?? 1)
        }
    }
}

import Foundation
