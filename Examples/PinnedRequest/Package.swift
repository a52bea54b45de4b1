// swift-tools-version:6.1
import PackageDescription

// A pinned HTTPS request to a local server on 127.0.0.1 (ATSTestServers), offline. The TransportClient
// getting-started article shows this code (scripts/check-doc-snippets.py keeps the two the same).
let package = Package(
    name: "PinnedRequest",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "swift-transport-security", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "PinnedRequest",
            dependencies: [
                .product(name: "TransportClient", package: "swift-transport-security"),
                .product(name: "TransportTrust", package: "swift-transport-security"),
                .product(name: "ATSTestServers", package: "swift-transport-security"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
