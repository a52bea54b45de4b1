/// Why a configuration could not be loaded. Descriptions say what was wrong, where, and how to fix it.
public enum ATSConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing is at `path`.
    case fileNotFound(path: String)
    /// `path` exists but cannot be read, with the system's reason.
    case unreadable(path: String, reason: String)
    /// The file (or the archive member) is not a usable property list.
    case propertyList(path: String, PropertyListError)
    /// A folder that is neither an app bundle nor holds an Info.plist.
    case noInfoPlist(folder: String)
    /// The .ipa could not be opened as a zip archive.
    case badArchive(path: String, reason: String)
    /// The .ipa holds no `Payload/*.app/Info.plist`.
    case noAppInArchive(path: String)

    public var description: String {
        switch self {
        case .fileNotFound(let p):
            return "\(p): no such file or folder; pass an Info.plist, an NSAppTransportSecurity plist, an .app folder or an .ipa"
        case .unreadable(let p, let reason):
            return "\(p): cannot be read (\(reason)); check the path and its permissions"
        case .propertyList(let p, let error):
            return "\(p): \(error)"
        case .noInfoPlist(let f):
            return "\(f): this folder has no Info.plist (looked for Info.plist and Contents/Info.plist); pass the .app bundle or the plist itself"
        case .badArchive(let p, let reason):
            return "\(p): not a readable .ipa (zip) archive: \(reason); rebuild or re-download the archive"
        case .noAppInArchive(let p):
            return "\(p): the archive has no Payload/<name>.app/Info.plist, so it is not an iOS app archive"
        }
    }
}
