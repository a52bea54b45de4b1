/// A TLS protocol version as ATS names it in `NSExceptionMinimumTLSVersion`.
///
/// Apple: "NSExceptionMinimumTLSVersion … TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3 … The default value is TLSv1.2."
/// (https://developer.apple.com/documentation/bundleresources/information-property-list/nsexceptionminimumtlsversion)
public enum TLSVersion: String, Sendable, Hashable, Comparable, CaseIterable, Codable, CustomStringConvertible {
    /// TLS 1.0 (`TLSv1.0`), allowed only by an exception.
    case tls10 = "TLSv1.0"
    /// TLS 1.1 (`TLSv1.1`), allowed only by an exception.
    case tls11 = "TLSv1.1"
    /// TLS 1.2 (`TLSv1.2`), the ATS default minimum.
    case tls12 = "TLSv1.2"
    /// TLS 1.3 (`TLSv1.3`).
    case tls13 = "TLSv1.3"

    /// The ATS default minimum.
    public static let atsDefault: TLSVersion = .tls12

    public var description: String { rawValue }

    /// The protocol's wire version (major, minor): TLS 1.2 is (3, 3).
    public var wireVersion: (major: UInt8, minor: UInt8) {
        switch self {
        case .tls10: return (3, 1)
        case .tls11: return (3, 2)
        case .tls12: return (3, 3)
        case .tls13: return (3, 4)
        }
    }

    private var order: Int { TLSVersion.allCases.firstIndex(of: self) ?? 0 }
    public static func < (l: TLSVersion, r: TLSVersion) -> Bool { l.order < r.order }

    /// Parses a user's spelling for command-line options: `1.2`, `tls1.2`, `TLSv1.2`.
    package init?(loose text: String) {
        let t = text.lowercased().replacingOccurrences(of: "tlsv", with: "").replacingOccurrences(of: "tls", with: "")
        switch t.trimmingCharacters(in: .whitespaces) {
        case "1.0", "1": self = .tls10
        case "1.1": self = .tls11
        case "1.2": self = .tls12
        case "1.3": self = .tls13
        default: return nil
        }
    }
}

import Foundation
