import Foundation

/// The pin configuration formats this library reads and writes. Any can be converted to any other, so one pin
/// list can serve an iOS app, an Android app and a server.
public enum PinConfigurationFormat: String, Sendable, Hashable, CaseIterable {
    /// An Info.plist (or its `NSAppTransportSecurity` dictionary) with `NSPinnedDomains`.
    case ats
    /// A TrustKit configuration dictionary as an XML property list (`TSKConfiguration`, or the dictionary itself).
    case trustKit = "trustkit"
    /// A TrustKit configuration dictionary as JSON.
    case trustKitJSON = "trustkit-json"
    /// OkHttp `CertificatePinner` lines: `pattern sha256/…`.
    case okhttp
    /// An Android Network Security Config with `<domain-config>` and `<pin-set>`.
    case android

    /// Reads `bytes`, guessing the format when `format` is nil.
    /// - Parameter source: the file name, for error messages.
    /// - Returns: the configuration and any warnings (legacy SHA-1 pins, for example). The configuration is read
    ///   but not validated; call ``PinConfiguration/validate(now:source:)``.
    public static func read(_ bytes: [UInt8], source: String, format: PinConfigurationFormat? = nil)
        throws(PinConfigurationError) -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning])
    {
        let format = format ?? detect(bytes)
        switch format {
        case .ats: return try PlistPinFormats.readATS(bytes, source: source)
        case .trustKit, .trustKitJSON: return try PlistPinFormats.readTrustKit(bytes, source: source, json: format == .trustKitJSON)
        case .okhttp: return try OkHttpPinFormat.read(bytes, source: source)
        case .android: return try AndroidPinFormat.read(bytes, source: source)
        }
    }

    /// Reads the file at `path`.
    public static func read(path: String, format: PinConfigurationFormat? = nil)
        throws(PinConfigurationError) -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning])
    {
        let data: Data
        do { data = try InputFile.read(path) } catch {
            throw PinConfigurationError(.malformedDocument, source: InputFile.source(path), "the file cannot be read (\(error.reason))",
                                        fix: "Check the path and its permissions")
        }
        return try read(Array(data), source: InputFile.source(path), format: format)
    }

    /// Writes `configuration` in this format. Warnings say what the format cannot express and how it was written
    /// instead.
    public func write(_ configuration: PinConfiguration) -> (text: String, warnings: [PinConfigurationWarning]) {
        switch self {
        case .ats: return PlistPinFormats.writeATS(configuration)
        case .trustKit: return PlistPinFormats.writeTrustKit(configuration, json: false)
        case .trustKitJSON: return PlistPinFormats.writeTrustKit(configuration, json: true)
        case .okhttp: return OkHttpPinFormat.write(configuration)
        case .android: return AndroidPinFormat.write(configuration)
        }
    }

    /// Guesses the format from the content.
    public static func detect(_ bytes: [UInt8]) -> PinConfigurationFormat {
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
        let trimmed = text.drop(while: { $0.isWhitespace || $0 == "\u{FEFF}" })
        if trimmed.hasPrefix("{") { return .trustKitJSON }
        if text.contains("<network-security-config") { return .android }
        if text.hasPrefix("bplist") || text.contains("<plist") || trimmed.hasPrefix("<?xml") {
            let all = String(decoding: bytes, as: UTF8.self)
            if all.contains("TSKPinnedDomains") { return .trustKit }
            return .ats
        }
        return .okhttp
    }
}
