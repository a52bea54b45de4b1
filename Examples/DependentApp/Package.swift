// swift-tools-version:6.1
import PackageDescription

// An application that already depends on the newest swift-nio and swift-crypto, pinned exactly as an application
// may pin them, adds swift-transport-security beside them. It must resolve, build and run: the library declares
// ranges (issue #38). CI builds and runs it (scripts/build-examples.sh).
let package = Package(
    name: "DependentApp",
    platforms: [.macOS(.v13)],
    dependencies: [
        // snippet.start add
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        // A released version: .package(url: "https://github.com/<owner>/swift-transport-security.git", from: "1.0.0")
        .package(name: "swift-transport-security", path: "../.."),
        // snippet.end
    ],
    targets: [
        .executableTarget(
            name: "DependentApp",
            dependencies: [
                // snippet.start products
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "TransportTrust", package: "swift-transport-security"),
                // snippet.end
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
