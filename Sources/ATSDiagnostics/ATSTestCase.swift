import AppTransportSecurity

/// The sections of `nscurl --ats-diagnostics`, in its order.
public enum NSCurlSection: Int, Sendable, Hashable, Codable, CaseIterable {
    /// "Default ATS Secure Connection": no keys.
    case defaultSecureConnection = 1
    /// "Allowing Arbitrary Loads": NSAllowsArbitraryLoads.
    case arbitraryLoads
    /// "Configuring TLS exceptions": each lower NSExceptionMinimumTLSVersion.
    case tlsExceptions
    /// "Configuring PFS exceptions": NSExceptionRequiresForwardSecrecy = NO.
    case pfsExceptions
    /// "Configuring PFS exceptions and allowing insecure HTTP".
    case pfsAndInsecureHTTP
    /// "Configuring TLS exceptions with PFS disabled".
    case tlsWithPFSDisabled
    /// "Configuring TLS exceptions with PFS disabled and insecure HTTP allowed".
    case tlsWithPFSDisabledAndInsecureHTTP

    /// nscurl's section title for `host`.
    public func title(host: String) -> String {
        switch self {
        case .defaultSecureConnection: return "Default ATS Secure Connection"
        case .arbitraryLoads: return "Allowing Arbitrary Loads"
        case .tlsExceptions: return "Configuring TLS exceptions for \(host)"
        case .pfsExceptions: return "Configuring PFS exceptions for \(host)"
        case .pfsAndInsecureHTTP: return "Configuring PFS exceptions and allowing insecure HTTP for \(host)"
        case .tlsWithPFSDisabled: return "Configuring TLS exceptions with PFS disabled for \(host)"
        case .tlsWithPFSDisabledAndInsecureHTTP: return "Configuring TLS exceptions with PFS disabled and insecure HTTP allowed for \(host)"
        }
    }
}

/// The ATS keys one test sets: either NSAllowsArbitraryLoads, or an NSExceptionDomains entry for the URL's host.
public struct ATSRelaxation: Sendable, Hashable, Codable {
    /// NSAllowsArbitraryLoads = YES.
    public var allowsArbitraryLoads: Bool
    /// NSExceptionMinimumTLSVersion, when set.
    public var minimumTLSVersion: TLSVersion?
    /// NSExceptionRequiresForwardSecrecy = NO.
    public var disablesForwardSecrecy: Bool
    /// NSExceptionAllowsInsecureHTTPLoads = YES.
    public var allowsInsecureHTTP: Bool

    /// The keys a test sets; none by default.
    public init(allowsArbitraryLoads: Bool = false, minimumTLSVersion: TLSVersion? = nil, disablesForwardSecrecy: Bool = false,
                allowsInsecureHTTP: Bool = false) {
        self.allowsArbitraryLoads = allowsArbitraryLoads
        self.minimumTLSVersion = minimumTLSVersion
        self.disablesForwardSecrecy = disablesForwardSecrecy
        self.allowsInsecureHTTP = allowsInsecureHTTP
    }

    /// No keys: ATS defaults.
    public var isDefault: Bool { self == ATSRelaxation() }

    /// The NSExceptionDomains entry for the host, or nil when the test sets none.
    public var exceptionEntry: [String: PlistValue]? {
        var entry: [String: PlistValue] = [:]
        if let minimumTLSVersion { entry["NSExceptionMinimumTLSVersion"] = .string(minimumTLSVersion.rawValue) }
        if disablesForwardSecrecy { entry["NSExceptionRequiresForwardSecrecy"] = .boolean(false) }
        if allowsInsecureHTTP { entry["NSExceptionAllowsInsecureHTTPLoads"] = .boolean(true) }
        return entry.isEmpty ? nil : entry
    }

    /// The `NSAppTransportSecurity` dictionary for `host`, exactly as the test hands it to the resolver.
    public func dictionary(host: String) -> [String: PlistValue] {
        if allowsArbitraryLoads { return ["NSAllowsArbitraryLoads": .boolean(true)] }
        guard let entry = exceptionEntry else { return [:] }
        return ["NSExceptionDomains": .dictionary([host: .dictionary(entry)])]
    }
}

/// One test: an nscurl test (section and title) or one of our own probes, and the ATS keys it sets.
public struct ATSTestCase: Sendable, Hashable, Codable, Identifiable {
    /// A stable identifier: `default`, `arbitrary-loads`, `tls1.2`, `pfs`, `pfs-http`, `tls1.2-pfs`, `tls1.2-pfs-http`,
    /// and `http` for the probe.
    public var id: String
    /// Nil for probes, which nscurl does not run.
    public var section: NSCurlSection?
    /// nscurl's test title.
    public var title: String
    /// The ATS keys the test sets for the host.
    public var relaxation: ATSRelaxation

    /// The 16 tests of `nscurl --ats-diagnostics`, in its order.
    public static let nscurl: [ATSTestCase] = {
        let versions: [TLSVersion] = [.tls13, .tls12, .tls11, .tls10]
        func tag(_ v: TLSVersion) -> String { v.rawValue.replacingOccurrences(of: "TLSv", with: "tls") }
        var tests = [
            ATSTestCase(id: "default", section: .defaultSecureConnection, title: "ATS Default Connection", relaxation: ATSRelaxation()),
            ATSTestCase(id: "arbitrary-loads", section: .arbitraryLoads, title: "Allow All Loads", relaxation: ATSRelaxation(allowsArbitraryLoads: true)),
        ]
        tests += versions.map { ATSTestCase(id: tag($0), section: .tlsExceptions, title: $0.rawValue, relaxation: ATSRelaxation(minimumTLSVersion: $0)) }
        tests.append(ATSTestCase(id: "pfs", section: .pfsExceptions, title: "Disabling Perfect Forward Secrecy",
                                 relaxation: ATSRelaxation(disablesForwardSecrecy: true)))
        tests.append(ATSTestCase(id: "pfs-http", section: .pfsAndInsecureHTTP, title: "Disabling Perfect Forward Secrecy and Allowing Insecure HTTP",
                                 relaxation: ATSRelaxation(disablesForwardSecrecy: true, allowsInsecureHTTP: true)))
        tests += versions.map {
            ATSTestCase(id: tag($0) + "-pfs", section: .tlsWithPFSDisabled, title: "\($0.rawValue) with PFS disabled",
                        relaxation: ATSRelaxation(minimumTLSVersion: $0, disablesForwardSecrecy: true))
        }
        tests += versions.map {
            ATSTestCase(id: tag($0) + "-pfs-http", section: .tlsWithPFSDisabledAndInsecureHTTP,
                        title: "\($0.rawValue) with PFS disabled and insecure HTTP allowed",
                        relaxation: ATSRelaxation(minimumTLSVersion: $0, disablesForwardSecrecy: true, allowsInsecureHTTP: true))
        }
        return tests
    }()

    /// Insecure HTTP alone: nscurl never tries it, but it is the smallest exception for a redirect to `http://`.
    public static let insecureHTTPProbe = ATSTestCase(id: "http", section: nil, title: "Allowing Insecure HTTP",
                                                      relaxation: ATSRelaxation(allowsInsecureHTTP: true))

    /// Everything a diagnosis runs: nscurl's tests, then the probes.
    public static let all: [ATSTestCase] = nscurl + [insecureHTTPProbe]

    /// The configurations a recommendation is chosen from, least relaxed first. The first one that loads is the
    /// smallest exception; `arbitrary-loads` is last because it turns ATS off for every domain.
    package static let recommendationOrder: [String] = [
        "default", "tls1.1", "tls1.0", "pfs", "tls1.1-pfs", "tls1.0-pfs", "http", "pfs-http", "tls1.1-pfs-http", "tls1.0-pfs-http",
        "arbitrary-loads",
    ]

    /// The test with this id (`default`, `tls1.2`, …), nil when there is none.
    public static func named(_ id: String) -> ATSTestCase? { all.first { $0.id == id } }
}
