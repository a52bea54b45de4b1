import ATSTestServers
import Foundation
import TestSupport
import DiagnosisTestSupport
import Testing

/// The HTML reports in a real browser: headless Chromium (Debian's `chromium`, installed by .ci/run) loads each page,
/// and the assertions read the DOM it built (`--dump-dom`), so an element injected through the input would be seen.
/// With `ATS_REPORT_SCREENSHOTS=DIR` set, each page's screenshot is also written to DIR (docs/ keeps one per kind).
@Suite(.serialized) struct HTMLReportBrowserTests {
    struct NoBrowser: Error, CustomStringConvertible {
        var description: String { "headless Chromium is needed to test the HTML reports: apt-get install chromium (.ci/run installs it)" }
    }

    static func chromium() throws -> URL {
        let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        guard let path = candidates.first(where: FileManager.default.isExecutableFile) else { throw NoBrowser() }
        return URL(fileURLWithPath: path)
    }

    /// Chromium with a profile of its own, offline: it may not reach anything but the file.
    static func browse(_ page: String, _ mode: [String], in dir: TemporaryDirectory) async throws -> Subprocess.Result {
        // Headless Chromium needs scripts on to dump the DOM, print or take a screenshot (its own machinery); the page has
        // none, and its Content-Security-Policy keeps any injected script from running.
        try await Subprocess.run(try chromium(), ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                                  "--user-data-dir=\(dir.file("profile"))", "--proxy-server=127.0.0.1:9",
                                                  "--window-size=1280,1600"] + mode + ["file://\(page)"], limit: .seconds(120))
    }

    /// The page, the DOM Chromium made of it, and proof that it prints.
    static func load(_ html: String, name: String) async throws -> String {
        let dir = try TemporaryDirectory()
        let page = try dir.write("\(name).html", html)
        let dom = try await browse(page, ["--dump-dom"], in: dir)
        #expect(dom.status == 0, "\(dom.errors.suffix(500))")
        // A page with something injected is not loaded with scripts on: the caller's assertion reports it.
        guard injected(dom.output).isEmpty else { return dom.output }
        let pdf = dir.file("\(name).pdf")
        _ = try await browse(page, ["--print-to-pdf=\(pdf)", "--no-pdf-header-footer"], in: dir)
        let printed = try Data(contentsOf: URL(fileURLWithPath: pdf))
        #expect(printed.starts(with: Array("%PDF".utf8)) && printed.count > 1000, "\(name) prints to PDF")
        if let shots = ProcessInfo.processInfo.environment["ATS_REPORT_SCREENSHOTS"], !shots.isEmpty {
            _ = try await browse(page, ["--screenshot=\(shots)/report-\(name).png"], in: dir)
        }
        return dom.output
    }

    /// Elements no report has: anything injected through the input would be one of them.
    static func injected(_ dom: String) -> [String] {
        let lower = dom.lowercased()
        let elements = ["<script", "<img", "<iframe", "<object", "<embed", "<svg", "<link", "<form", "<input"].filter { lower.contains($0) }
        // An event handler inside a tag (text between tags holds only escaped angle brackets).
        let handlers = lower.ranges(of: #/<[a-z][^>]*\son[a-z]+=/#).map { String(lower[$0]) }
        return elements + handlers
    }

    static let hostilePlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>com.example.&lt;script&gt;alert(1)&lt;/script&gt;</string>
        <key>NSAppTransportSecurity</key><dict>
          <key>&lt;script&gt;alert("key")&lt;/script&gt;</key><true/>
          <key>NSExceptionDomains</key><dict>
            <key>"&gt;&lt;img src=x onerror=alert(2)&gt;.example.com</key><dict>
              <key>NSExceptionAllowsInsecureHTTPLoads</key><true/>
              <key>NSExceptionMinimumTLSVersion</key><string>&lt;/td&gt;&lt;script&gt;alert('v')&lt;/script&gt;&amp;#60;b&amp;#62;</string>
            </dict>
            <key>\(String(repeating: "a", count: 190)).example.com</key><dict>
              <key>NSIncludesSubdomains</key><string>YES</string>
            </dict>
          </dict>
        </dict></dict></plist>
        """

    @Test func aHostilePlistsAuditInjectsNothing() async throws {
        let dir = try TemporaryDirectory()
        let plist = try dir.write("hostile.plist", Self.hostilePlist)
        let html = await ats(["audit", plist, "--format", "html"])
        #expect(html.status == 0, "\(html.err)")
        let json = await ats(["audit", plist, "--format", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let findings = try #require(report["findings"] as? [[String: Any]])
        #expect(findings.count >= 6)

        let dom = try await Self.load(html.out, name: "audit")
        #expect(Self.injected(dom).isEmpty, "\(Self.injected(dom))")
        // Every finding is on the page: its rule, and its message as text (the DOM writes < and & escaped again).
        for finding in findings {
            let rule = try #require(finding["ruleId"] as? String)
            let message = try #require(finding["message"] as? String)
            #expect(dom.contains(rule), "\(rule)")
            let escaped = message.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            #expect(dom.contains(escaped), "\(rule): \(message)")
        }
        // The input is shown as written: an escaped character reference in it is not turned into its character.
        #expect(dom.contains("&amp;#60;b&amp;#62;"))
        #expect(dom.contains("&lt;script&gt;alert(\"key\")&lt;/script&gt;"))
    }

    @Test func theDemoServersDiagnosisIsATableForEachURL() async throws {
        let servers = try await SharedServers.shared.servers()
        let cases: [BadSSLCase] = [.good, .expired, .wrongHost, .tls10Only, .selfSigned]
        let urls = cases.compactMap { servers.url(for: $0) }
        #expect(urls.count == cases.count)
        let html = await ats(["diagnose"] + urls + ["--anchors", servers.caFile, "--format", "html"])
        #expect(html.status == 1, "some cases fail default ATS: \(html.err)")
        let dom = try await Self.load(html.out, name: "diagnose")
        #expect(Self.injected(dom).isEmpty, "\(Self.injected(dom))")
        for url in urls { #expect(dom.contains(url), "\(url)") }
        // nscurl's matrix for every URL, each test with its result, and the smallest exception.
        #expect(dom.components(separatedBy: "TLSv1.2").count > urls.count)
        #expect(dom.components(separatedBy: "<h3>Smallest exception</h3>").count - 1 == urls.count)
        #expect(dom.contains("badge pass") && dom.contains("badge fail"))
        #expect(dom.contains("NSExceptionMinimumTLSVersion"), "the TLS 1.0 case's exception is shown")
    }

    @Test func aChainIsATreeWithTheFailingRuleMarked() async throws {
        let pki = try TestPKIFiles()
        let html = await ats(["verify", pki.chain, "--anchors", pki.root, "--host", "wrong.example.test", "--format", "html"])
        #expect(html.status == 1, "\(html.err)")
        let dom = try await Self.load(html.out, name: "verify")
        #expect(Self.injected(dom).isEmpty)
        #expect(dom.contains("NOT TRUSTED"))
        #expect(dom.contains("cert failing") && dom.contains("hostnameMismatch"))
        // Leaf, intermediate and anchor, nested.
        #expect(dom.components(separatedBy: "<ul class=\"chain\">").count - 1 == 3)
        #expect(dom.contains("[leaf]") && dom.contains("[intermediate]") && dom.contains("[anchor]"))
    }
}

/// The example chain and root shipped in Examples/, as files.
struct TestPKIFiles {
    let chain: String
    let root: String

    init() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples")
        chain = examples.appendingPathComponent("chain.pem").path
        root = examples.appendingPathComponent("root.pem").path
    }
}
