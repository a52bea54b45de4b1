// swift-tools-version:6.1
import PackageDescription

// Would an iPhone trust this chain? A real chain with embedded SCTs, checked offline against Apple's root store and
// Apple's CT log list, both bundled with the package. The TransportTrust article "Getting the iPhone's verdict" shows
// this code (scripts/check-doc-snippets.py keeps the two the same).
let package = Package(
    name: "AppleVerdict",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Named, so that the products resolve whatever the checkout folder is called.
        .package(name: "swift-transport-security", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "AppleVerdict",
            dependencies: [.product(name: "TransportTrust", package: "swift-transport-security")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
