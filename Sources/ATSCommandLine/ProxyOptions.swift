import ArgumentParser
import Foundation
import TransportClient
import TransportTrust

/// `--proxy`, `--noproxy` and `--proxy-cacert`, and the proxy environment variables read as curl reads them.
struct ProxyOptions: ParsableArguments {
    @Option(name: .customLong("proxy"), help: ArgumentHelp(
        "[http://|https://][USER:PASSWORD@]HOST[:PORT]: send every request through this proxy (default port 1080, 443 for https://). An empty value turns proxies off.",
        discussion: "Without it, https_proxy/HTTPS_PROXY, http_proxy and all_proxy/ALL_PROXY are read as curl reads them (upper-case HTTP_PROXY is ignored, as by curl, since CGI sets it from a request header)."))
    var proxy: String?

    @Option(name: .customLong("noproxy"),
            help: "Hosts reached without the proxy, comma-separated: names (with their subdomains), IP addresses, CIDR ranges, or * for all. Overrides no_proxy/NO_PROXY.")
    var noProxy: String?

    @Option(name: .customLong("proxy-cacert"), help: "Trust anchors (PEM or DER) for an https:// proxy's certificate; default: those of the origin. Pins never apply to the proxy.")
    var proxyAnchors: String?

    /// The proxy settings for this run, or nil when no proxy applies.
    /// - Parameter environment: the process's environment, or a test's.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProxyConfiguration? {
        var anchors: TrustAnchors?
        if let proxyAnchors {
            anchors = TrustAnchors(custom: try CertificateLoader.certificates(atPath: proxyAnchors))
        }
        func parse(_ text: String, _ source: String) throws -> Proxy {
            do {
                var proxy = try Proxy(url: text)
                proxy.anchors = anchors
                return proxy
            } catch {
                throw InputError("\(source): \(error)")
            }
        }
        let noProxyList = NoProxyList(noProxy ?? Self.variable(["no_proxy", "NO_PROXY"], in: environment)?.value ?? "")
        if let proxy {
            guard !proxy.isEmpty else { return nil }
            return ProxyConfiguration(all: try parse(proxy, "--proxy"), noProxy: noProxyList)
        }
        let all = try Self.variable(["all_proxy", "ALL_PROXY"], in: environment).map { try parse($0.value, $0.name) }
        let https = try Self.variable(["https_proxy", "HTTPS_PROXY"], in: environment).map { try parse($0.value, $0.name) } ?? all
        let http = try Self.variable(["http_proxy"], in: environment).map { try parse($0.value, $0.name) } ?? all
        guard https != nil || http != nil else { return nil }
        return ProxyConfiguration(https: https, http: http, noProxy: noProxyList)
    }

    /// The first of `names` that is set and not empty, lower case first as curl looks.
    static func variable(_ names: [String], in environment: [String: String]) -> (name: String, value: String)? {
        for name in names {
            if let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty { return (name, value) }
        }
        return nil
    }
}
