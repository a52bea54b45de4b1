// swift-tools-version:6.1
import PackageDescription

// AFNetworking, Alamofire, TrustKit, OkHttp and Android pinning set-ups on TransportTrust, offline, against
// Examples/chain.pem. The "Coming from" articles show this code (scripts/check-doc-snippets.py keeps the two the same).
let package = Package(
    name: "PinMigration",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Named, so that the products resolve whatever the checkout folder is called.
        .package(name: "swift-transport-security", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "PinMigration",
            dependencies: [
                .product(name: "TransportTrust", package: "swift-transport-security"),
                .product(name: "AppTransportSecurity", package: "swift-transport-security"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
