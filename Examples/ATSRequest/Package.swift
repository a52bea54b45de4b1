// swift-tools-version:6.1
import PackageDescription

// An HTTPS request under an Info.plist's ATS settings, to a local server on 127.0.0.1 (ATSTestServers), offline.
// The TransportClient article shows this code (scripts/check-doc-snippets.py keeps the two the same).
let package = Package(
    name: "ATSRequest",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "swift-transport-security", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "ATSRequest",
            dependencies: [
                .product(name: "TransportClient", package: "swift-transport-security"),
                .product(name: "TransportTrust", package: "swift-transport-security"),
                .product(name: "AppTransportSecurity", package: "swift-transport-security"),
                .product(name: "AppBundles", package: "swift-transport-security"),
                .product(name: "ATSTestServers", package: "swift-transport-security"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
