// swift-tools-version:6.2
import PackageDescription

// A Hummingbird 2 server whose routes read the client identity that TransportServer verified during the TLS
// handshake. Hummingbird is a dependency of this example only, never of the library.
let package = Package(
    name: "MTLSHummingbird",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named, so that the products resolve whatever the checkout folder is called.
        .package(name: "swift-transport-security", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "MTLSHummingbird",
            dependencies: [
                .product(name: "TransportServer", package: "swift-transport-security"),
                .product(name: "TransportTrust", package: "swift-transport-security"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
