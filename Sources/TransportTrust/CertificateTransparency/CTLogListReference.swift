import Foundation

/// Which CT log list decided a verdict: where it came from, its version, and when it was last confirmed current.
///
/// Reports carry it (`ctLogList` in JSON) so that a reader can tell an iPhone's verdict made with a current list from
/// one made with the bundled fallback.
public struct CTLogListReference: Sendable, Hashable, Codable {
    /// Where the list came from.
    public enum Origin: String, Sendable, Hashable, Codable {
        /// The list shipped inside this package.
        case bundled
        /// A list a ``CTLogListStore`` fetched and kept.
        case cached
        /// A list the caller supplied, used whatever its age.
        case supplied
    }

    /// Where the list came from.
    public var source: Origin
    /// The address a cached list was fetched from, or the file a supplied list was read from; nil for the bundled list.
    public var location: String?
    /// The list's own version number.
    public var version: String
    /// When the list was last known to be Apple's current one; nil for a supplied list, which never goes out of date.
    public var confirmed: Date?

    init(source: CTLogList.Source, version: String, confirmed: Date?) {
        switch source {
        case .bundled: (self.source, location) = (.bundled, nil)
        case .cached(let address): (self.source, location) = (.cached, address)
        case .supplied(let name): (self.source, location) = (.supplied, name)
        }
        self.version = version
        self.confirmed = confirmed
    }
}

/// Whether Certificate Transparency is enforced with a set of options at a time, and with which list: what
/// `ats diagnose` and `ats fetch` say before they connect.
public struct CertificateTransparencyStatus: Sendable, Hashable, Codable {
    /// The options' mode.
    public var mode: CertificateTransparencyOptions.Mode
    /// True when a chain that Apple's policy refuses would be refused: the mode is `enforce` and the list is current.
    public var enforced: Bool
    /// The list in use; nil when CT is off or no list can be read.
    public var ctLogList: CTLogListReference?
    /// One sentence for a report's header.
    public var summary: String
}

extension CertificateTransparencyOptions {
    /// Whether these options enforce CT at `time`, with the list they use (the bundled one when none is set).
    public func status(at time: Date) -> CertificateTransparencyStatus {
        guard mode != .off else {
            return CertificateTransparencyStatus(mode: mode, enforced: false, ctLogList: nil, summary: "off: no SCT is checked")
        }
        guard let list = logList ?? (try? CTLogList.bundled()) else {
            return CertificateTransparencyStatus(mode: mode, enforced: false, ctLogList: nil,
                                                 summary: "no log list can be read, so every chain CT applies to is refused")
        }
        guard list.isCurrent(at: time) else {
            let age = list.age(at: time).map { "\($0) days" } ?? "too"
            return CertificateTransparencyStatus(mode: mode, enforced: false, ctLogList: list.reference,
                summary: "not enforced: \(list.summary) is \(age) old, and a device stops enforcing CT once its list is \(CTLogList.maximumAgeDays) days old")
        }
        let how = mode == .enforce ? "enforced where Apple requires it" : "reported, never refused"
        return CertificateTransparencyStatus(mode: mode, enforced: mode == .enforce, ctLogList: list.reference,
                                             summary: "\(how), with \(list.summary)")
    }
}
