// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-transport-security",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "TransportTrust", targets: ["TransportTrust"]),
        .library(name: "AppTransportSecurity", targets: ["AppTransportSecurity"]),
        .library(name: "AppBundles", targets: ["AppBundles"]),
        .library(name: "TransportDecision", targets: ["TransportDecision"]),
        .library(name: "TransportClient", targets: ["TransportClient"]),
        .library(name: "TransportServer", targets: ["TransportServer"]),
        .library(name: "ATSDiagnostics", targets: ["ATSDiagnostics"]),
        .library(name: "ATSTestServers", targets: ["ATSTestServers"]),
        .executable(name: "ats", targets: ["ats"]),
    ],
    // Ranges, never exact versions: the exact ones belong to the application's Package.resolved. Each lower bound is the
    // lowest version this package is built and tested with (scripts/check-range.sh, docs/DEPENDENCIES.md); CI resolves
    // the newest.
    dependencies: [
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // 3.x and 4.x both resolve, as in swift-certificates: an app on either can add this package.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // `swift package generate-documentation` for the DocC catalogs (scripts/build-docs.sh); a plugin, never linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        // HTML reports (`--format html`): Plot builds the document, escaping text, so no input is concatenated into HTML.
        .package(url: "https://github.com/JohnSundell/Plot.git", from: "0.14.0"),
    ],
    targets: [
        // Trust evaluation: chain building, policies, verdicts. No network I/O.
        .target(
            name: "TransportTrust",
            dependencies: [
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                // The one locking style (DEVELOPERS.md, "Concurrency"); it builds two small C-free targets.
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            // Reference data the evaluation needs, each folder with its source and date (DEVELOPERS.md, "Reference data").
            resources: [.copy("Resources/AppleTrustStore"), .copy("Resources/CTLogList"), .copy("Resources/PublicSuffixList")],
            swiftSettings: strict
        ),
        // App Transport Security: Info.plist reading, per-URL requirements, audit. No network I/O.
        .target(
            name: "AppTransportSecurity",
            dependencies: ["TransportTrust"],
            swiftSettings: strict
        ),
        // ATS configurations read from a path, an .app folder or an .ipa: the one module that links an unzipper.
        .target(
            name: "AppBundles",
            dependencies: [
                "AppTransportSecurity", "TransportTrust",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict
        ),
        // Whether one connection may proceed: TLS parameters before the handshake, one typed decision after it.
        // No I/O, so the client, the diagnostics and the tests run the same decision.
        .target(
            name: "TransportDecision",
            dependencies: ["TransportTrust", "AppTransportSecurity"],
            swiftSettings: strict
        ),
        // The HTTPS client: ATS, trust and pins enforced during the TLS handshake.
        .target(
            name: "TransportClient",
            dependencies: [
                "TransportTrust", "AppTransportSecurity", "TransportDecision",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                // HPACKHeaders: the frame-level HTTP/2 path builds and reads header blocks itself (docs/HTTP2.md).
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The server side of mutual TLS: client certificates verified by the trust engine during the handshake.
        // Free of any web framework and of ATS; Examples/ shows a framework reading the verdict.
        .target(
            name: "TransportServer",
            dependencies: [
                "TransportTrust",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
        // nscurl --ats-diagnostics for any platform: each test an ATS dictionary sent through TransportClient.
        .target(
            name: "ATSDiagnostics",
            dependencies: [
                "TransportTrust", "AppTransportSecurity", "TransportClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // SHA-256 for the stable shard of a host (ScanShard).
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // A local badssl: HTTPS servers on 127.0.0.1, each a known case, behind a generated CA (`ats serve`, `ats demo`).
        .target(
            name: "ATSTestServers",
            dependencies: [
                "TransportTrust", "TransportServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // Self-contained HTML reports of an audit, a diagnosis or a verdict (`--format html`). Only the CLI links it, so
        // the library products do not link the templating package.
        .target(
            name: "HTMLReports",
            dependencies: [
                "TransportTrust", "AppTransportSecurity", "ATSDiagnostics",
                .product(name: "Plot", package: "Plot"),
            ],
            swiftSettings: strict
        ),
        // The `ats` commands as a library, so tests can drive them without a subprocess.
        .target(
            name: "ATSCommandLine",
            dependencies: [
                "TransportTrust", "AppTransportSecurity", "AppBundles", "TransportClient", "ATSDiagnostics", "ATSTestServers", "TransportServer",
                "HTMLReports",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "ats", dependencies: ["ATSCommandLine"], swiftSettings: strict),
        // Support shared by the test targets: certificates, child processes, time limits. Free of NIO (its own process
        // limit, not ATSTestServers'), so that TransportTrustTests builds without the network stack.
        .target(
            name: "TestSupport",
            dependencies: [
                "TransportTrust",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        // ATS inputs (Info.plists, binary plists, .ipa archives) and a SARIF validator, for the tests of the ATS
        // modules and of the commands that read them; apart from TestSupport, so that no other test target links
        // ZIPFoundation or AppTransportSecurity through it.
        .target(
            name: "ATSTestSupport",
            dependencies: ["AppTransportSecurity", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            path: "Tests/ATSTestSupport",
            swiftSettings: strict
        ),
        // Servers and processes the client, server and command tests share: HTTP servers, tinyproxy, the mutual-TLS
        // fixture and a running `ats serve`. NIO, kept out of TestSupport.
        .target(
            name: "TestServersSupport",
            dependencies: [
                "TestSupport", "TransportTrust", "TransportServer", "ATSTestServers",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestServersSupport",
            swiftSettings: strict
        ),
        // The local cases, started once per run, and the gate on concurrent diagnoses, shared by the diagnostics and
        // command tests; apart from TestServersSupport, so that the client and server tests link no diagnostics.
        .target(
            name: "DiagnosisTestSupport",
            dependencies: ["TestSupport", "TransportTrust", "ATSDiagnostics", "ATSTestServers", "ATSCommandLine"],
            path: "Tests/DiagnosisTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "TransportTrustTests",
            dependencies: [
                "TestSupport", "TransportTrust", "AppTransportSecurity",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            // Real chains read from the source tree by path (#filePath), not bundled.
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AppTransportSecurityTests",
            dependencies: ["ATSTestSupport", "AppTransportSecurity", "TransportTrust"],
            // The audit's corpus, read from the source tree by path (#filePath), not bundled.
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AppBundlesTests",
            dependencies: [
                "ATSTestSupport", "AppBundles", "AppTransportSecurity",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TransportDecisionTests",
            dependencies: ["TestSupport", "TransportDecision", "TransportTrust", "AppTransportSecurity", .product(name: "X509", package: "swift-certificates")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TransportClientTests",
            dependencies: [
                "TestSupport", "TestServersSupport", "TransportClient", "TransportTrust", "AppTransportSecurity", "ATSCommandLine",
                "ATSTestServers",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TransportServerTests",
            dependencies: [
                "TestSupport", "TestServersSupport", "TransportServer", "TransportClient", "TransportTrust", "ATSTestServers",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ATSDiagnosticsTests",
            dependencies: [
                "TestSupport", "DiagnosisTestSupport", "ATSDiagnostics", "ATSTestServers", "ATSCommandLine", "TransportClient",
                "TransportTrust", "AppTransportSecurity",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The `ats` commands, run in-process through ATSCommand or as the built executable.
        .testTarget(
            name: "ATSCommandLineTests",
            dependencies: [
                "TestSupport", "ATSTestSupport", "TestServersSupport", "DiagnosisTestSupport", "ATSCommandLine",
                "TransportTrust", "AppTransportSecurity", "TransportClient", "TransportServer", "ATSDiagnostics", "ATSTestServers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets (Fuzz/README.md), in the graph only when ATS_FUZZ is set: `swift build` and `swift test` never compile
// them. They sit in this package, not a package of their own, so that they can reach `package` API.
// `ats-fuzz` is libFuzzer's binary (only with `-Xswiftc -sanitize=fuzzer`, which links libFuzzer), `ats-fuzz-replay`
// replays the saved corpora in any build (CI).
if Context.environment["ATS_FUZZ"] != nil {
    package.targets += [
        .target(
            name: "FuzzTargets",
            dependencies: [
                "TransportTrust", "AppTransportSecurity", "AppBundles", "TransportClient",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Fuzz/Targets",
            swiftSettings: strict
        ),
        .executableTarget(name: "ats-fuzz", dependencies: ["FuzzTargets"], path: "Fuzz/LibFuzzer", swiftSettings: strict),
        .executableTarget(name: "ats-fuzz-replay", dependencies: ["FuzzTargets"], path: "Fuzz/Replay", swiftSettings: strict),
    ]
    package.products += [
        .executable(name: "ats-fuzz", targets: ["ats-fuzz"]),
        .executable(name: "ats-fuzz-replay", targets: ["ats-fuzz-replay"]),
    ]
}
