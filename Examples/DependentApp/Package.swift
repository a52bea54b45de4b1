// swift-tools-version:6.1
import PackageDescription

// An application that already depends on the newest swift-nio and swift-crypto, pinned exactly as an application
// may pin them, adds swift-transport-security beside them. It must resolve, build and run: the library declares
// ranges (issue #38). CI builds and runs it (scripts/build-examples.sh).
let package = Package(
    name: "DependentApp",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(name: "swift-transport-security", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "DependentApp",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "TransportTrust", package: "swift-transport-security"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
