import Foundation
import TransportTrust

/// Reads ATS configurations from plists. Reading them from a path, an `.app` folder or an `.ipa` is in the
/// AppBundles module, so that what needs no archive (the HTTPS client, say) does not link an unzipper.
public struct ConfigurationLoader: Sendable {
    /// The reading to take for every plist; nil to decide from its keys (``ConfigurationSource/layoutReason`` says how).
    public var layout: ConfigurationSource.Layout?

    /// A loader that reads every plist as `layout`, or decides from its keys when nil.
    public init(layout: ConfigurationSource.Layout? = nil) {
        self.layout = layout
    }

    /// Reads one plist held in memory. `name` is used in messages.
    public func load(data: Data, name: String, role: ConfigurationSource.Role = .standalone) throws(ATSConfigurationError) -> ConfigurationSource {
        try source(data: data, inputPath: name, memberPath: nil, role: role)
    }

    package func source(data: Data, inputPath: String, memberPath: String?, inArchive: Bool = false,
                role: ConfigurationSource.Role) throws(ATSConfigurationError) -> ConfigurationSource {
        let document: PropertyListReader.Document
        do {
            document = try PropertyListReader().read(data)
        } catch {
            throw .propertyList(path: memberPath.map { "\(inputPath) › \($0)" } ?? inputPath, error)
        }
        return ConfigurationSource(document: document, inputPath: inputPath, memberPath: memberPath, memberIsInArchive: inArchive, role: role,
                                   forcedLayout: layout)
    }
}
