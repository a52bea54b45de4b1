/// Something wrong with how a key is written: found while reading, reported by the audit.
public struct ConfigurationIssue: Sendable, Equatable {
    /// What kind of problem the key has.
    public enum Kind: Sendable, Equatable {
        /// The value has the wrong type; it is ignored and the default applies.
        case wrongType(key: ATSKey, expected: PlistKind, found: PlistValue)
        /// A key ATS does not know. `suggestion` is the key it was probably meant to be; `belongsAt` is set
        /// when the key exists but at another level.
        case unknownKey(key: String, suggestion: String?, belongsAt: ATSKey.Level?)
        /// A value of the right type that is not one of the allowed values.
        case invalidValue(key: ATSKey, value: String, allowed: [String], suggestion: String?)
        /// A key written twice in one dictionary; only the last copy takes effect. `ignoredCopy` is where an
        /// earlier copy is written (XML only); ``keyPath`` leads to the copy that takes effect.
        case duplicateKey(key: String, ignoredCopy: SourceLocation?)
        /// A dictionary lacks the key it exists for: a pinned identity without `SPKI-SHA256-BASE64`. ``written`` is
        /// the spelling found in its place, if any.
        case missingKey(key: ATSKey)
        /// An ATS key written directly inside `container` (`NSExceptionDomains` or `NSPinnedDomains`), where every key
        /// names a domain. It belongs at `belongsAt`; `likelyDomain` is the container's one empty entry, if it has
        /// exactly one.
        case keyAmongDomains(key: ATSKey, container: ATSKey, belongsAt: ATSKey.Level, likelyDomain: String?)
        /// `NSAppTransportSecurity` itself is not a dictionary; the whole configuration is ignored.
        case containerWrongType(found: PlistValue)
    }

    /// What is wrong with the key.
    public var kind: Kind
    /// The path from the `NSAppTransportSecurity` dictionary.
    public var keyPath: PlistKeyPath
    /// The value written at the key, when advice depends on what renaming or moving the key would turn on.
    public var value: PlistValue?
    /// The spelling found where a key is missing (``Kind/missingKey(key:)``).
    public var written: String?

    /// An issue of `kind` at `keyPath`, with the value and spelling found when the advice depends on them.
    package init(_ kind: Kind, at keyPath: PlistKeyPath, value: PlistValue? = nil, written: String? = nil) {
        self.kind = kind
        self.keyPath = keyPath
        self.value = value
        self.written = written
    }
}
