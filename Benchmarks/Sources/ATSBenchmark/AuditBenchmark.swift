import AppBundles
import AppTransportSecurity
import BenchmarkSupport
import Foundation
import ZIPFoundation

/// Loads and audits a large generated .ipa repeatedly and prints the time per audit.
struct AuditBenchmark {
    struct Options {
        var seconds = 3.0
        var extensions = 20
        var keep: String?
    }

    let options: Options

    func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ats-audit-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let ipa = options.keep.map(URL.init(fileURLWithPath:)) ?? dir.appendingPathComponent("Large.ipa")
        try? FileManager.default.removeItem(at: ipa)
        let build = Date()
        let entries = try Self.writeIPA(to: ipa, extensions: options.extensions)
        let size = (try FileManager.default.attributesOfItem(atPath: ipa.path)[.size] as? Int) ?? 0
        print("ipa: \(entries) entries, \(size / 1_048_576) MiB, \(options.extensions) extensions (built in \(String(format: "%.1f", Date().timeIntervalSince(build))) s)")

        var report = try audit(ipa.path)
        print("audit: \(report.sources.count) Info.plists, \(report.findings.count) findings")
        guard report.sources.count == options.extensions + 1 else {
            throw BenchmarkError(description: "expected \(options.extensions + 1) Info.plists, audited \(report.sources.count)")
        }
        var times: [Double] = []
        let start = Date()
        repeat {
            let t = DispatchTime.now().uptimeNanoseconds
            report = try audit(ipa.path)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
        } while Date().timeIntervalSince(start) < options.seconds
        times.sort()
        print(String(format: "load + audit: median %.1f ms, p90 %.1f ms, over %d runs", times[times.count / 2],
                     times[min(times.count - 1, times.count * 9 / 10)], times.count))
    }

    func audit(_ path: String) throws -> AuditReport {
        Auditor(profile: .newest).audit(try ConfigurationLoader().load(path: path))
    }

    /// Writes the .ipa and returns its entry count. Binaries are random (incompressible) and stored, as
    /// signed Mach-O files mostly are; plists alternate XML and binary.
    static func writeIPA(to url: URL, extensions: Int) throws -> Int {
        let archive = try Archive(url: url, accessMode: .create)
        var count = 0
        func add(_ path: String, _ data: Data, compressed: Bool = true) throws {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count),
                                 compressionMethod: compressed ? .deflate : .none) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
            count += 1
        }
        let app = "Payload/Large.app"
        try add("\(app)/Info.plist", try plist(bundle: "com.example.large", ats: appATS, binary: false))
        try add("\(app)/Large", random(40 << 20), compressed: false)
        for i in 0..<3000 {
            try add("\(app)/Assets/image-\(i).png", random(2048), compressed: false)
        }
        for i in 0..<extensions {
            let ext = "\(app)/PlugIns/Extension\(i).appex"
            try add("\(ext)/Info.plist", try plist(bundle: "com.example.large.ext\(i)", ats: extensionATS(i), binary: i % 2 == 1))
            try add("\(ext)/Extension\(i)", random(1 << 20), compressed: false)
        }
        return count
    }

    static func random(_ bytes: Int) -> Data {
        var g = SystemRandomNumberGenerator()
        var data = Data(count: bytes)
        data.withUnsafeMutableBytes { raw in
            for i in stride(from: 0, to: raw.count - 7, by: 8) { raw.storeBytes(of: g.next(), toByteOffset: i, as: UInt64.self) }
        }
        return data
    }

    static func plist(bundle: String, ats: [String: Any], binary: Bool) throws -> Data {
        var info: [String: Any] = [
            "CFBundleIdentifier": bundle, "CFBundleName": bundle, "CFBundleVersion": "1.0",
            "CFBundleShortVersionString": "1.0", "NSAppTransportSecurity": ats,
            "UIRequiredDeviceCapabilities": ["arm64"], "LSRequiresIPhoneOS": true,
        ]
        for i in 0..<200 { info["ExampleKey\(i)"] = "value \(i)" }
        return try PropertyListSerialization.data(fromPropertyList: info, format: binary ? .binary : .xml, options: 0)
    }

    static var appATS: [String: Any] { [
        "NSAllowsArbitraryLoadsInWebContent": true,
        "NSExceptionDomains": Dictionary(uniqueKeysWithValues: (0..<40).map { i in
            ("api\(i).example.com", [
                "NSIncludesSubdomains": i % 2 == 0,
                "NSExceptionMinimumTLSVersion": i % 5 == 0 ? "TLSv1.0" : "TLSv1.2",
                "NSExceptionRequiresForwardSecrecy": i % 7 != 0,
                "NSExceptionAllowsInsecureHTTPLoads": i % 9 == 0,
            ] as [String: Any])
        }),
    ] }

    static func extensionATS(_ i: Int) -> [String: Any] {
        i % 4 == 0 ? ["NSAllowsArbitraryLoads": true]
            : ["NSExceptionDomains": ["ext\(i).example.com": ["NSExceptionMinimumTLSVersion": "TLSv1.1", "NSIncludesSubdomains": true]]]
    }
}
