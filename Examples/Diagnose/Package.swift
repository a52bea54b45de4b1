// swift-tools-version:6.1
import PackageDescription

// nscurl --ats-diagnostics as a library call, against a local server on 127.0.0.1 (ATSTestServers), offline.
// The ATSDiagnostics article shows this code (scripts/check-doc-snippets.py keeps the two the same).
let package = Package(
    name: "Diagnose",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "swift-transport-security", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "Diagnose",
            dependencies: [
                .product(name: "ATSDiagnostics", package: "swift-transport-security"),
                .product(name: "TransportTrust", package: "swift-transport-security"),
                .product(name: "ATSTestServers", package: "swift-transport-security"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
