import AppBundles
import AppTransportSecurity
import Foundation
import TransportClient

extension FuzzTarget {
    /// An .ipa (a ZIP archive) through `ats audit`'s loader: its central directory, member names, encryption flags,
    /// deflate streams and Info.plists. The archive is written to a file, as the loader reads one.
    static let ipa = FuzzTarget(name: "ipa", summary: ".ipa (ZIP) → IPAReader → Info.plists") { bytes in
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ats-fuzz-\(getpid()).ipa").path
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { violated("cannot write \(path)") }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sources: [ConfigurationSource]
        do { sources = try ConfigurationLoader().load(path: path) } catch {
            if "\(error)".isEmpty { violated("a refusal without a reason") }
            return
        }
        // One app, its extensions within bounds, every one read from inside it.
        if sources.filter({ $0.role == .app }).count != 1 { violated("an archive loaded with \(sources.filter { $0.role == .app }.count) apps") }
        if sources.count > 1 + 256 { violated("an archive loaded with \(sources.count - 1) extensions") }
        _ = Auditor().audit(sources)
    }

    /// A URL as `ats fetch`, `ats check` and a redirect read it, a proxy URL as `--proxy` reads it, and a NO_PROXY
    /// list. A URL that reads gives a canonical host, port and path, which read again, alone, as the same target.
    static let url = FuzzTarget(name: "url", summary: "URL → ConnectionTarget; proxy URL → Proxy; NO_PROXY → NoProxyList") { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        if let target = try? ConnectionTarget(url: text) {
            let host = target.host.contains(":") ? "[\(target.host)]" : target.host
            let again = "\(target.scheme)://\(host)\(target.isAbsolute ? "." : ""):\(target.port)\(target.path)"
            guard let reread = try? ConnectionTarget(url: again) else { violated("\(text) read as \(again), which does not read") }
            if reread != target { violated("\(text) read as \(target), and \(again) as \(reread)") }
        }
        if let proxy = try? Proxy(url: text), !(1...65535).contains(proxy.port) { violated("proxy \(text) read with port \(proxy.port)") }
        let noProxy = NoProxyList(text)
        for host in ["www.example.test", "127.0.0.1", "::1", "localhost", "a.corp.example"] { _ = noProxy.matches(host) }
    }
}
