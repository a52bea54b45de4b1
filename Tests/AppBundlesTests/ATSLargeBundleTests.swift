import AppBundles
import ATSTestSupport
import Foundation
import Testing

@testable import AppTransportSecurity

/// A large .ipa is read whole: an app, 20 extensions (XML and binary plists) and bulky assets.
/// How fast is measured by `ATSBenchmark audit` (bench/audit.sh), not here.
@Suite struct ATSLargeBundleTests {
    static func bigInfoPlist(_ i: Int) -> String {
        var domains = ""
        for d in 0..<50 {
            domains += """
                <key>host\(d).example\(i).com</key><dict>
                <key>NSIncludesSubdomains</key><true/>
                <key>NSExceptionAllowsInsecureHTTPLoads</key>\(d % 3 == 0 ? "<true/>" : "<false/>")
                <key>NSExceptionMinimumTLSVersion</key><string>TLSv1.\(d % 4)</string>
                </dict>
                """
        }
        return ATSFixture.infoPlist("<key>NSExceptionDomains</key><dict>\(domains)</dict>", bundleID: "com.example.app.ext\(i)")
    }

    @Test func everyPlistOfAnIPAWithTwentyExtensionsIsAudited() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var files: [(String, Data)] = [("Payload/Big.app/Info.plist", Data(Self.bigInfoPlist(0).utf8))]
        for i in 1...20 {
            let data = i.isMultiple(of: 2) ? try ATSFixture.binary(Self.bigInfoPlist(i)) : Data(Self.bigInfoPlist(i).utf8)
            files.append(("Payload/Big.app/PlugIns/Ext\(i).appex/Info.plist", data))
            files.append(("Payload/Big.app/PlugIns/Ext\(i).appex/Ext\(i)", Data(repeating: UInt8(i), count: 256 * 1024)))
        }
        var generator = SystemRandomNumberGenerator()
        var assets = Data(count: 8 * 1024 * 1024)
        assets.withUnsafeMutableBytes { raw in
            for i in stride(from: 0, to: raw.count, by: 8) { raw.storeBytes(of: generator.next() as UInt64, toByteOffset: i, as: UInt64.self) }
        }
        files.append(("Payload/Big.app/Assets.car", assets))
        let ipa = try ATSFixture.ipa(files, in: dir, name: "Big.ipa")
        let sources = try ConfigurationLoader().load(path: ipa.path)
        let report = Auditor().audit(sources)
        #expect(sources.count == 21)
        // Every extension's exception domains are reached, from XML and binary plists alike.
        for i in 0...20 {
            let domains = Set(report.findings.compactMap(\.domain).filter { $0.hasSuffix(".example\(i).com") })
            #expect(domains.count == 50, "plist \(i): \(domains.count) of 50 exception domains audited")
        }
    }
}
