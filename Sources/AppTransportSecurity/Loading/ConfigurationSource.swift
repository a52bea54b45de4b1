/// One configuration as found on disk: an app's or an extension's Info.plist, or a bare ATS dictionary.
public struct ConfigurationSource: Sendable {
    /// What kind of bundle the plist belongs to.
    public enum Role: String, Sendable, Codable {
        /// The app's own Info.plist.
        case app
        /// An app extension's Info.plist, inside the app.
        case appExtension = "extension"
        /// A plist given on its own.
        case standalone
    }

    /// How the property list holds the ATS settings.
    public enum Layout: String, Sendable, Codable {
        /// An Info.plist; the settings are under `NSAppTransportSecurity` (possibly absent).
        case infoPlist
        /// The `NSAppTransportSecurity` dictionary itself.
        case bareDictionary
    }

    /// The file given on the command line (the .ipa, the .app folder, or the plist).
    public var inputPath: String
    /// The plist's path inside the input (for an .ipa or .app), or nil when the input is the plist.
    public var memberPath: String?
    /// Whether ``memberPath`` is inside an archive (an .ipa) rather than a file of a folder (an .app).
    public var memberIsInArchive: Bool
    /// Whether the plist is an app's, an extension's, or a file on its own.
    public var role: Role
    /// The reading taken: an Info.plist or a bare ATS dictionary.
    public var layout: Layout
    /// Why the plist was read as ``layout``, in a sentence: the two readings of the same keys differ (a root-level
    /// `NSExceptionDomains` counts in a bare dictionary and has no effect in an Info.plist).
    public var layoutReason: String
    /// The plist's `CFBundleIdentifier`, when it has one.
    public var bundleIdentifier: String?
    /// How the plist was serialized.
    public var format: PropertyListFormat
    /// The ATS dictionary read from it.
    public var configuration: ATSConfiguration
    /// Problems with the Info.plist around the ATS dictionary (a misspelled or mistyped `NSAppTransportSecurity`,
    /// ATS keys at the root instead of inside it).
    public var containerIssues: [ConfigurationIssue]
    let document: PropertyListReader.Document

    /// Where the plist is, for messages: `App.ipa › Payload/App.app/Info.plist`.
    public var displayName: String { memberPath.map { "\(inputPath) › \($0)" } ?? inputPath }

    /// The path of the ATS dictionary in the plist.
    package var atsPrefix: PlistKeyPath { layout == .infoPlist ? PlistKeyPath(["NSAppTransportSecurity"]) : PlistKeyPath([]) }

    /// The line and column of a key (XML plists only), given its path from the ATS dictionary.
    public func location(of keyPath: PlistKeyPath) -> SourceLocation? {
        document.location(of: PlistKeyPath(atsPrefix.components + keyPath.components))
    }

    /// Reads a parsed plist: an Info.plist when it has `NSAppTransportSecurity` or bundle keys, else a bare
    /// ATS dictionary when its keys look like ATS keys.
    /// - Parameter forcedLayout: the reading to take whatever the keys say; nil to decide from the keys.
    init(document: PropertyListReader.Document, inputPath: String, memberPath: String?, memberIsInArchive: Bool = false, role: Role,
         forcedLayout: Layout? = nil) {
        self.inputPath = inputPath
        self.memberPath = memberPath
        self.memberIsInArchive = memberPath != nil && memberIsInArchive
        self.role = role
        self.format = document.format
        self.document = document
        var containerIssues: [ConfigurationIssue] = []
        guard case .dictionary(let root) = document.root else {
            self.layout = .infoPlist
            self.layoutReason = "read as an Info.plist: its root is not a dictionary, so it holds no ATS settings either way"
            self.configuration = ATSConfiguration()
            self.containerIssues = []
            self.bundleIdentifier = nil
            return
        }
        if case .string(let id)? = root["CFBundleIdentifier"] { bundleIdentifier = id } else { bundleIdentifier = nil }
        let atsKey = Self.atsKey
        let topLevel = ATSKey.keys(at: .topLevel).map(\.rawValue)
        let infoKeys = root.keys.filter(Self.isInfoPlistKey).sorted()
        let atsKeys = root.keys.filter { ATSKey(rawValue: $0) != nil || KeySuggester.suggestion(for: $0, among: topLevel) != nil }.sorted()
        let looksBare = root[atsKey] == nil && infoKeys.isEmpty && !atsKeys.isEmpty
        layoutReason = Self.reason(forced: forcedLayout, looksBare: looksBare, hasATSKey: root[atsKey] != nil, infoKeys: infoKeys, atsKeys: atsKeys)
        if forcedLayout ?? (looksBare ? .bareDictionary : .infoPlist) == .bareDictionary {
            layout = .bareDictionary
            configuration = ATSConfiguration(dictionary: root)
        } else {
            layout = .infoPlist
            let read = Self.readInfoPlist(root)
            configuration = read.configuration
            containerIssues = read.issues
        }
        Self.placeDuplicateKeys(document.duplicateKeys, prefix: layout == .infoPlist ? [atsKey] : [],
                                configuration: &configuration, containerIssues: &containerIssues)
        self.containerIssues = containerIssues
    }

    private static let atsKey = "NSAppTransportSecurity"

    /// The ATS dictionary of an Info.plist's root, and what is wrong around it: NSAppTransportSecurity of another
    /// type or misspelt, ATS keys at the root.
    private static func readInfoPlist(_ root: [String: PlistValue]) -> (configuration: ATSConfiguration, issues: [ConfigurationIssue]) {
        let atsKey = Self.atsKey
        let configuration: ATSConfiguration
        var containerIssues: [ConfigurationIssue] = []
        switch root[atsKey] {
        case .dictionary(let ats)?:
            configuration = ATSConfiguration(dictionary: ats)
        case let other?:
            configuration = ATSConfiguration()
            containerIssues.append(ConfigurationIssue(.containerWrongType(found: other), at: PlistKeyPath([])))
        case nil:
            configuration = ATSConfiguration()
            for key in root.keys.sorted() where KeySuggester.suggestion(for: key, among: [atsKey]) != nil {
                containerIssues.append(ConfigurationIssue(.unknownKey(key: key, suggestion: atsKey, belongsAt: nil),
                                                          at: PlistKeyPath([key])))
            }
        }
        // ATS reads its keys only inside NSAppTransportSecurity; at the root they do nothing.
        for key in root.keys.sorted() {
            guard let known = ATSKey(rawValue: key), let level = known.levels.first else { continue }
            containerIssues.append(ConfigurationIssue(.unknownKey(key: key, suggestion: key, belongsAt: level), at: PlistKeyPath([key]), value: root[key]))
        }
        return (configuration, containerIssues)
    }

    /// Each repeated key, as an issue of the ATS dictionary (its path relative to `prefix`, the dictionary's path) or,
    /// for a repeated NSAppTransportSecurity itself, of the Info.plist around it. Other repeated keys do not matter to ATS.
    private static func placeDuplicateKeys(_ duplicates: [PropertyListReader.DuplicateKey], prefix: [String],
                                           configuration: inout ATSConfiguration, containerIssues: inout [ConfigurationIssue]) {
        for dup in duplicates {
            let path = dup.keyPath
            let key = path.last ?? ""
            if path.components.starts(with: prefix), path.components.count > prefix.count {
                let relative = PlistKeyPath(Array(path.components.dropFirst(prefix.count)))
                configuration.issues.append(ConfigurationIssue(.duplicateKey(key: key, ignoredCopy: dup.ignoredCopy), at: relative))
            } else if path.components == [Self.atsKey] {
                containerIssues.append(ConfigurationIssue(.duplicateKey(key: key, ignoredCopy: dup.ignoredCopy), at: path))
            }
        }
    }

    /// Why a plist is read as it is, naming the keys that decided.
    static func reason(forced: Layout?, looksBare: Bool, hasATSKey: Bool, infoKeys: [String], atsKeys: [String]) -> String {
        func some(_ keys: [String]) -> String { keys.prefix(3).joined(separator: ", ") + (keys.count > 3 ? ", …" : "") }
        let detected = looksBare ? Layout.bareDictionary : .infoPlist
        if let forced {
            let asked = forced == .bareDictionary ? "a bare NSAppTransportSecurity dictionary" : "an Info.plist"
            return forced == detected ? "read as \(asked), as asked, which is also how its keys read"
                : "read as \(asked), as asked, though its keys read as \(detected == .bareDictionary ? "a bare NSAppTransportSecurity dictionary" : "an Info.plist")"
        }
        if looksBare {
            return "read as a bare NSAppTransportSecurity dictionary: its root holds ATS keys (\(some(atsKeys))) and no NSAppTransportSecurity, CFBundle… or other Info.plist key; in an Info.plist those keys would be misplaced and have no effect"
        }
        if hasATSKey { return "read as an Info.plist: its root has an NSAppTransportSecurity key" }
        if !infoKeys.isEmpty {
            return "read as an Info.plist: its root has Info.plist keys (\(some(infoKeys)))\(atsKeys.isEmpty ? "" : ", so the ATS keys at its root are misplaced")"
        }
        return "read as an Info.plist: its root holds no ATS key"
    }

    /// The location of a path from the plist's root (for container issues).
    package func rootLocation(of path: PlistKeyPath) -> SourceLocation? { document.location(of: path) }
}

extension ConfigurationSource {
    /// Keys only an Info.plist has. Since Xcode 13 the Info.plist in a project's source tree often has no `CFBundle…`
    /// key (Xcode adds them when it builds), so any of these marks one: an ATS key at its root is then misplaced,
    /// as the system reads it, not a bare ATS dictionary.
    static func isInfoPlistKey(_ key: String) -> Bool {
        let prefixes = ["CFBundle", "UI", "LS", "DT", "ITS", "WK", "GK", "MinimumOSVersion", "BuildMachineOSBuild", "NSExtension",
                        "NSPrincipalClass", "NSMainStoryboardFile", "NSMainNibFile", "NSHumanReadableCopyright", "NSUserActivityTypes"]
        return prefixes.contains(where: key.hasPrefix) || (key.hasPrefix("NS") && key.hasSuffix("UsageDescription"))
    }
}
