// swift-tools-version:6.1
import PackageDescription

// One connection decision without a socket: the plan for www.example.test, then the decision on Examples/chain.pem
// and two negotiated parameter sets. The TransportDecision catalog shows this code (scripts/check-doc-snippets.py
// keeps the two the same).
let package = Package(
    name: "DecideConnection",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "swift-transport-security", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "DecideConnection",
            dependencies: [
                .product(name: "TransportDecision", package: "swift-transport-security"),
                .product(name: "AppTransportSecurity", package: "swift-transport-security"),
                .product(name: "TransportTrust", package: "swift-transport-security"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
