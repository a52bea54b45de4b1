import Foundation

/// A pin failure report with TrustKit's JSON shape, so existing report collectors accept it.
///
/// The library only builds the report; a ``PinFailureReporting`` delivers it.
public struct PinFailureReport: Sendable, Hashable, Codable {
    /// TrustKit's `validation-result` values.
    public enum ValidationResult: Int, Sendable, Codable {
        /// 0: the pins matched.
        case success = 0
        /// 1: the chain is trusted but no pin matched.
        case failedNoMatchingPin = 1
        /// 2: the chain is not trusted.
        case failedInvalidCertificateChain = 2
        /// 3: the pin configuration could not be used.
        case errorInvalidParameters = 3
        /// 4: the chain ends at a user-installed anchor (TrustKit's `failedUserDefinedTrustAnchor`).
        case failedUserDefinedTrustAnchor = 4
        /// 5: a key's SPKI hash could not be computed.
        case errorCouldNotGenerateSpkiHash = 5
    }

    /// What identifies the app sending the report; supplied by the caller.
    public struct AppInfo: Sendable, Hashable, Codable {
        /// `app-bundle-id`.
        public var bundleID: String
        /// `app-version`.
        public var version: String
        /// `app-platform`: the OS the app runs on.
        public var platform: String
        /// `app-platform-version`, when known.
        public var platformVersion: String?
        /// `app-vendor-id`, when the app has one.
        public var vendorID: String?

        /// The app as the report names it.
        public init(bundleID: String, version: String, platform: String, platformVersion: String? = nil, vendorID: String? = nil) {
            self.bundleID = bundleID
            self.version = version
            self.platform = platform
            self.platformVersion = platformVersion
            self.vendorID = vendorID
        }

        /// `N/A` everywhere, for a report without an app.
        public static let unknown = AppInfo(bundleID: "N/A", version: "N/A", platform: "N/A")
    }

    /// The app that saw the failure.
    public var app: AppInfo
    /// `date-time`: when the failure happened.
    public var dateTime: Date
    /// `hostname`: the host connected to.
    public var hostname: String
    /// `port`.
    public var port: Int
    /// The configured name whose pin set applied (for a subdomain, the parent name).
    public var notedHostname: String
    /// `include-subdomains`: whether the pin set covers subdomains.
    public var includeSubdomains: Bool
    /// `enforce-pinning`: whether the failure refused the connection.
    public var enforcePinning: Bool
    /// The built chain as PEM, leaf first.
    public var validatedCertificateChain: [String]
    /// `pin-sha256="…"` strings.
    public var knownPins: [String]
    /// `validation-result`: why the check failed.
    public var validationResult: ValidationResult
    /// `known-pins-expiration-date`, when the pin set expires.
    public var knownPinsExpirationDate: Date?

    /// A report with every field given.
    public init(app: AppInfo, dateTime: Date, hostname: String, port: Int, notedHostname: String, includeSubdomains: Bool,
                enforcePinning: Bool, validatedCertificateChain: [String], knownPins: [String], validationResult: ValidationResult,
                knownPinsExpirationDate: Date?) {
        self.app = app
        self.dateTime = dateTime
        self.hostname = hostname
        self.port = port
        self.notedHostname = notedHostname
        self.includeSubdomains = includeSubdomains
        self.enforcePinning = enforcePinning
        self.validatedCertificateChain = validatedCertificateChain
        self.knownPins = knownPins
        self.validationResult = validationResult
        self.knownPinsExpirationDate = knownPinsExpirationDate
    }

    /// Builds the report for `chain` (as built) and `pinSet`.
    package init(app: AppInfo, dateTime: Date, hostname: String, port: Int, noted: HostPattern, pinSet: PinSet,
                chain: [InputCertificate], validationResult: ValidationResult) {
        self.init(app: app, dateTime: dateTime, hostname: hostname, port: port, notedHostname: noted.name,
                  includeSubdomains: noted.coversSubdomains, enforcePinning: pinSet.enforcePinning,
                  validatedCertificateChain: chain.map { Self.pem($0.der) },
                  knownPins: pinSet.allPins.map { pin in
                      if case .spkiSHA1(let h) = pin { return "pin-sha1=\"\(Base64.encode(h))\"" }
                      return pin.asSPKISHA256?.base64.map { "pin-sha256=\"\($0)\"" } ?? pin.description
                  },
                  validationResult: validationResult, knownPinsExpirationDate: pinSet.expirationDate)
    }

    enum CodingKeys: String, CodingKey {
        case appBundleID = "app-bundle-id", appVersion = "app-version", appPlatform = "app-platform"
        case appPlatformVersion = "app-platform-version", appVendorID = "app-vendor-id"
        case dateTime = "date-time", hostname, port, notedHostname = "noted-hostname"
        case includeSubdomains = "include-subdomains", enforcePinning = "enforce-pinning"
        case validatedCertificateChain = "validated-certificate-chain", knownPins = "known-pins"
        case validationResult = "validation-result", knownPinsExpirationDate = "known-pins-expiration-date"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(app.bundleID, forKey: .appBundleID)
        try c.encode(app.version, forKey: .appVersion)
        try c.encode(app.platform, forKey: .appPlatform)
        try c.encodeIfPresent(app.platformVersion, forKey: .appPlatformVersion)
        try c.encodeIfPresent(app.vendorID, forKey: .appVendorID)
        try c.encode(RFC3339.format(dateTime), forKey: .dateTime)
        try c.encode(hostname, forKey: .hostname)
        try c.encode(port, forKey: .port)
        try c.encode(notedHostname, forKey: .notedHostname)
        try c.encode(includeSubdomains, forKey: .includeSubdomains)
        try c.encode(enforcePinning, forKey: .enforcePinning)
        try c.encode(validatedCertificateChain, forKey: .validatedCertificateChain)
        try c.encode(knownPins, forKey: .knownPins)
        try c.encode(validationResult, forKey: .validationResult)
        try c.encodeIfPresent(knownPinsExpirationDate.map(RFC3339.day), forKey: .knownPinsExpirationDate)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        app = AppInfo(bundleID: try c.decode(String.self, forKey: .appBundleID), version: try c.decode(String.self, forKey: .appVersion),
                      platform: try c.decodeIfPresent(String.self, forKey: .appPlatform) ?? "N/A",
                      platformVersion: try c.decodeIfPresent(String.self, forKey: .appPlatformVersion),
                      vendorID: try c.decodeIfPresent(String.self, forKey: .appVendorID))
        let time = try c.decode(String.self, forKey: .dateTime)
        guard let parsed = RFC3339.parse(time) else {
            throw DecodingError.dataCorruptedError(forKey: .dateTime, in: c, debugDescription: "date-time '\(time)' is not RFC 3339")
        }
        dateTime = parsed
        hostname = try c.decode(String.self, forKey: .hostname)
        port = try c.decode(Int.self, forKey: .port)
        notedHostname = try c.decode(String.self, forKey: .notedHostname)
        includeSubdomains = try c.decode(Bool.self, forKey: .includeSubdomains)
        enforcePinning = try c.decodeIfPresent(Bool.self, forKey: .enforcePinning) ?? true
        validatedCertificateChain = try c.decode([String].self, forKey: .validatedCertificateChain)
        knownPins = try c.decode([String].self, forKey: .knownPins)
        validationResult = try c.decode(ValidationResult.self, forKey: .validationResult)
        knownPinsExpirationDate = try c.decodeIfPresent(String.self, forKey: .knownPinsExpirationDate).flatMap(PinDates.parseDay)
    }

    /// The JSON body to POST, keys sorted so identical reports are identical bytes.
    public var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map(Array.init) ?? []
    }

    /// The identity used to drop duplicates: everything but the time.
    package var deduplicationKey: PinFailureReport {
        var copy = self
        copy.dateTime = Date(timeIntervalSince1970: 0)
        return copy
    }

    static func pem(_ der: [UInt8]) -> String {
        let b64 = Base64.encode(der)
        var lines: [Substring] = []
        var rest = Substring(b64)
        while !rest.isEmpty {
            lines.append(rest.prefix(64))
            rest = rest.dropFirst(64)
        }
        return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
    }
}
