// swift-tools-version:6.1
import PackageDescription

// Verify a chain and pin a host, offline, with Examples/chain.pem and Examples/root.pem. The TransportTrust
// getting-started article shows this code (scripts/check-doc-snippets.py keeps the two the same).
let package = Package(
    name: "VerifyChain",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Named, so that the products resolve whatever the checkout folder is called.
        .package(name: "swift-transport-security", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "VerifyChain",
            dependencies: [.product(name: "TransportTrust", package: "swift-transport-security")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
