import Testing

@testable import TransportTrust

/// Names as `--platform` takes them, and which of Apple's TLS server rules each release enforces.
@Suite struct ApplePlatformTests {
    @Test(arguments: [
        ("ios17", ApplePlatform(.iOS, 17)), ("ios10", ApplePlatform(.iOS, 10)), ("ios13.2", ApplePlatform(.iOS, 13, 2)),
        ("iOS 12.1.1", ApplePlatform(.iOS, 12, 1, 1)), ("macos10.15", ApplePlatform(.macOS, 10, 15)), ("macos14", ApplePlatform(.macOS, 14)),
        ("macos10.11", ApplePlatform(.macOS, 10, 11)), ("IOS26", ApplePlatform(.iOS, 26)), ("macOS 11", ApplePlatform(.macOS, 11)),
    ])
    func parsesTheNamesPlatformTakes(name: String, expected: ApplePlatform) {
        #expect(ApplePlatform(name: name) == expected)
    }

    @Test(arguments: ["", "ios", "ios8", "ios17.", "ios.17", "ios1.2.3.4", "ios-1", "ios17x", "macos10", "macos10.10", "macos9", "watchos9",
                      "ios999", "ios١٧", "android14"])
    func refusesOtherNames(name: String) {
        #expect(ApplePlatform(name: name) == nil)
    }

    @Test func theNewestIsIOS26AndDescriptionsReadAsApplesNames() {
        #expect(ApplePlatform.newest == ApplePlatform(.iOS, 26))
        #expect(ApplePlatform.newest.description == "iOS 26")
        #expect(ApplePlatform(.iOS, 12, 1, 1).description == "iOS 12.1.1")
        #expect(ApplePlatform(.macOS, 10, 15).description == "macOS 10.15")
        #expect(ApplePlatform(.iOS, 13, 0, 1).description == "iOS 13.0.1")
    }

    /// support.apple.com/103769: iOS 13 and macOS 10.15.
    @Test func rsa2048AndThe825DayLimitFromIOS13AndMacOS10_15() {
        for (name, expected) in [("ios12.4", false), ("ios13", true), ("ios26", true), ("macos10.14.6", false), ("macos10.15", true), ("macos11", true)] {
            let platform = ApplePlatform(name: name)!
            #expect(platform.requiresRSA2048ForTLSServers == expected, "\(name)")
            #expect(platform.limitsLifetimeTo825Days == expected, "\(name)")
        }
    }

    /// support.apple.com/102028, first shipped in iOS 14 and macOS 11.
    @Test func the398DayLimitFromIOS14AndMacOS11() {
        for (name, expected) in [("ios13.7", false), ("ios14", true), ("macos10.15.7", false), ("macos11", true)] {
            #expect(ApplePlatform(name: name)!.limitsLifetimeTo398Days == expected, "\(name)")
        }
    }

    /// support.apple.com/103214: iOS 12.1.1 and macOS 10.14.2.
    @Test func certificateTransparencyFromIOS12_1_1AndMacOS10_14_2() {
        for (name, expected) in [("ios12.1", false), ("ios12.1.1", true), ("ios12.2", true), ("macos10.14.1", false), ("macos10.14.2", true)] {
            #expect(ApplePlatform(name: name)!.enforcesCertificateTransparency == expected, "\(name)")
        }
    }

    @Test func releasesOfOneOSAreOrdered() {
        #expect(ApplePlatform(.iOS, 12, 1) < ApplePlatform(.iOS, 12, 1, 1))
        #expect(ApplePlatform(.iOS, 9) < ApplePlatform(.iOS, 10))
        #expect(ApplePlatform(.macOS, 10, 15) < ApplePlatform(.macOS, 11))
    }
}
