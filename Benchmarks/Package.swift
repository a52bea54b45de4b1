// swift-tools-version:6.1
import PackageDescription

// The benchmarks, the soak test and the heap statistics, in a package of their own: the root package's `Sources/`
// holds only what users link, and a user who adds swift-transport-security never builds or resolves any of this.
// It depends on the root package by path, so it sees its public API and its `@_spi(Benchmarks)` hooks.
//
// - `Benchmarks/<Name>/`: in-process benchmarks on ordo-one/benchmark (wall clock, CPU, allocations, with thresholds
//   in `Thresholds/`): `swift package --package-path Benchmarks benchmark` (docs/BENCHMARKS.md).
// - `Sources/`: the programs `bench/*.sh` run beside the peers (OpenSSL, pyca, curl, h2load, nginx), and the soak test
//   `.ci/run` runs.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "swift-transport-security", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // A peer for the client benchmarks only (bench/peers.sh); never a dependency of the root package.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // Timing, memory and argument parsing shared by the benchmark executables.
        .target(name: "BenchmarkSupport", dependencies: ["CHeapStats"], swiftSettings: strict),
        // glibc's count of heap bytes in use, which Swift's Glibc module does not export (malloc.h).
        .target(name: "CHeapStats"),
        .executableTarget(
            name: "TrustBenchmark",
            dependencies: [
                .product(name: "TransportTrust", package: "swift-transport-security"), "BenchmarkSupport",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "ATSBenchmark",
            dependencies: [
                .product(name: "AppTransportSecurity", package: "swift-transport-security"), .product(name: "AppBundles", package: "swift-transport-security"), .product(name: "TransportClient", package: "swift-transport-security"), .product(name: "TransportTrust", package: "swift-transport-security"), .product(name: "ATSTestServers", package: "swift-transport-security"), "BenchmarkSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        // Certificate Transparency's cost on four real chains (bench/ct.sh, docs/BENCHMARKS.md).
        .executableTarget(
            name: "CTBenchmark",
            dependencies: [.product(name: "TransportTrust", package: "swift-transport-security"), "BenchmarkSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // Reading and searching a CRL of a million entries, beside `openssl crl` (bench/crl.sh, docs/BENCHMARKS.md).
        .executableTarget(
            name: "CRLBenchmark",
            dependencies: [
                .product(name: "TransportTrust", package: "swift-transport-security"), "BenchmarkSupport",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // `ats diagnose` timed on loopback: one full diagnosis, and a fleet scan (docs/DIAGNOSE.md).
        .executableTarget(
            name: "DiagnoseBenchmark",
            dependencies: [
                .product(name: "ATSDiagnostics", package: "swift-transport-security"), .product(name: "ATSTestServers", package: "swift-transport-security"), .product(name: "TransportClient", package: "swift-transport-security"), .product(name: "TransportTrust", package: "swift-transport-security"), "BenchmarkSupport",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        // Mutual-TLS handshakes per second (ours cold and cached, beside nginx) and RSS over refused handshakes (bench/mtls.sh).
        .executableTarget(
            name: "MTLSBenchmark",
            dependencies: [
                .product(name: "TransportServer", package: "swift-transport-security"), .product(name: "TransportTrust", package: "swift-transport-security"), .product(name: "ATSTestServers", package: "swift-transport-security"), "BenchmarkSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The client against hostile local servers, and hostile clients against the server, in bounded counts: RSS and
        // open descriptors must stay flat (docs/RELIABILITY.md).
        .executableTarget(
            name: "SoakTest",
            dependencies: [
                .product(name: "TransportClient", package: "swift-transport-security"), .product(name: "TransportTrust", package: "swift-transport-security"), .product(name: "TransportServer", package: "swift-transport-security"), .product(name: "ATSTestServers", package: "swift-transport-security"), "BenchmarkSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "BenchmarkSupportTests", dependencies: ["BenchmarkSupport"], swiftSettings: strict),
        // package-benchmark suites: `swift package --package-path Benchmarks benchmark` (docs/BENCHMARKS.md).
        .target(name: "SuiteDefaults", dependencies: [.product(name: "Benchmark", package: "benchmark")], swiftSettings: strict),
        .executableTarget(
            name: "TrustEvaluation",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SuiteDefaults",
                .product(name: "TransportTrust", package: "swift-transport-security"),
            ],
            path: "Benchmarks/TrustEvaluation",
            swiftSettings: strict,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "KeepAlive",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SuiteDefaults",
                .product(name: "TransportTrust", package: "swift-transport-security"),
                .product(name: "TransportClient", package: "swift-transport-security"),
                .product(name: "ATSTestServers", package: "swift-transport-security"),
            ],
            path: "Benchmarks/KeepAlive",
            swiftSettings: strict,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Audit",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"), "SuiteDefaults",
                .product(name: "AppTransportSecurity", package: "swift-transport-security"),
            ],
            path: "Benchmarks/Audit",
            swiftSettings: strict,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
