// swift-tools-version:6.1
import PackageDescription

// Mutual TLS with TransportServer on plain swift-nio: a server that verifies client certificates with the trust
// engine during the handshake, and TransportClient presenting one. Offline: 127.0.0.1 and a PKI made at run time.
// The TransportServer article shows this code (scripts/check-doc-snippets.py keeps the two the same).
let package = Package(
    name: "MutualTLS",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "swift-transport-security", path: "../.."),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
    ],
    targets: [
        .executableTarget(
            name: "MutualTLS",
            dependencies: [
                .product(name: "TransportServer", package: "swift-transport-security"),
                .product(name: "TransportClient", package: "swift-transport-security"),
                .product(name: "TransportTrust", package: "swift-transport-security"),
                .product(name: "ATSTestServers", package: "swift-transport-security"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
