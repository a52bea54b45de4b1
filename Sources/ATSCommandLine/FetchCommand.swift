import AppBundles
import AppTransportSecurity
import ArgumentParser
import Foundation
import NIOHTTP1
import TransportClient
import TransportTrust

/// `ats fetch`: one request through the enforcing client, with the handshake explained.
struct FetchCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch a URL with ATS, server trust and pins enforced during the TLS handshake.",
        discussion: """
            The URL's ATS requirements come from --plist (or ATS defaults), pins from --pin/--pin-file, anchors from --anchors (or \
            the system roots; SSL_CERT_FILE and SSL_CERT_DIR are honoured). --verbose shows the TLS version and cipher suite, the \
            chain with each certificate's SPKI hash, the trust verdict and the ATS rule behind each check.
            The report is the body, or with --json one JSON object describing the outcome. --output FILE writes it to FILE \
            (a body is streamed, so any size loads); --quiet reads the body to its end and prints nothing, so the exit \
            status alone says whether the fetch succeeded.
            Exit status: 0 success, 1 refused (trust, ATS, pin, or an HTTP error status), 2 usage or input error, 141 when nothing reads standard output any more (as for any tool in a pipe).
            """
    )

    @Argument(help: "The https:// (or permitted http://) URL.")
    var url: String

    @Option(help: "An Info.plist, bare NSAppTransportSecurity plist, .app or .ipa whose ATS rules apply (default: ATS defaults).")
    var plist: String?

    @OptionGroup var platformOption: PlatformOption

    @Flag(name: .customLong("no-ats"), help: "Do not apply ATS rules (trust and pins still apply).")
    var noATS = false

    @OptionGroup var pinOptions: PinOptions

    @OptionGroup var anchorOptions: AnchorOptions

    @Option(help: "A PKCS#12 client identity (.p12) for mutual TLS; needs --password-file.")
    var identity: String?

    @Option(name: .customLong("password-file"), help: "A file holding the PKCS#12 password (first line).")
    var passwordFile: String?

    @Option(help: "A PEM client certificate chain for mutual TLS; needs --key.")
    var cert: String?

    @Option(help: "The PEM private key for --cert.")
    var key: String?

    @Option(help: "USER:PASSWORD for HTTP Basic or Digest challenges from the URL's own scheme, host and port (never from a host a redirect leads to).")
    var user: String?

    @Option(help: "The request method (default GET, or POST with --data).")
    var method: String?

    @Option(name: .customLong("header"), help: "A request header 'Name: value'. Repeatable.")
    var headers: [String] = []

    @Option(help: "The request body: text, or @FILE.")
    var data: String?

    @Option(name: .customLong("max-redirects"), parsing: .unconditional, help: "Redirects to follow (default 10).")
    var maxRedirects: Int = 10

    // Unconditional, so that "-1" reaches validate() as a value instead of "Missing value for '--timeout'".
    @Option(parsing: .unconditional, help: "Time limit in seconds for the whole request (default 30).")
    var timeout: Double = 30

    @Option(name: .customLong("connect-timeout"), parsing: .unconditional,
            help: "Time limit in seconds for opening the TCP connection, and again for the TLS handshake (default 10), as curl's option; never more than --timeout.")
    var connectTimeout: Double = 10

    /// --json, --output and --quiet as every report command takes them; the report is the body, or the JSON outcome.
    @OptionGroup var report: ReportOptions
    var json: Bool { report.json }
    var output: String? { report.output }
    /// The body is streamed to --output by this command (it says how far a cut-off body got); the JSON outcome goes
    /// through the shell's --output like any other report.
    var reportGoesToStandardOutput: Bool { json }

    @OptionGroup var resolveOptions: ResolveOptions

    @OptionGroup(title: "Proxies (https goes through a CONNECT tunnel: the origin's TLS, trust and pins are checked end to end)")
    var proxyOptions: ProxyOptions

    @Option(help: "Revocation checking of the server's chain, from each certificate's OCSP responder and then its http CRL distribution points: off (default), soft or hard.")
    var revocation: RevocationOptions.Mode = .off

    @OptionGroup(title: "Certificate Transparency (embedded SCTs; SCTs in the TLS extension or a stapled OCSP response cannot be read)")
    var ctOptions: CTOptions

    @Flag(name: .customLong("http1.1"), help: "Offer only HTTP/1.1 through ALPN.")
    var http11 = false

    @Flag(name: .customLong("http2"), help: "Offer only HTTP/2 (h2) through ALPN, and fail when the server does not agree. Without either flag both are offered and the server chooses.")
    var http2 = false

    @Flag(help: "Show the handshake: TLS version, cipher suite, chain with SPKI hashes, verdict, ATS rules.")
    var verbose = false

    func validate() throws {
        if identity != nil && (cert != nil || key != nil) { throw ValidationError("give either --identity or --cert/--key, not both") }
        if identity != nil && passwordFile == nil { throw ValidationError("--identity needs --password-file") }
        if (cert == nil) != (key == nil) { throw ValidationError("--cert and --key go together") }
        if noATS && plist != nil {
            throw ValidationError("--no-ats applies no ATS rules, so --plist would not be read; drop one of them")
        }
        if let user, !user.contains(":") { throw ValidationError("--user takes NAME:PASSWORD") }
        if http11 && http2 { throw ValidationError("give either --http1.1 or --http2, not both") }
        if maxRedirects < 0 { throw ValidationError("--max-redirects must be 0 or more") }
        // Bounded so that the conversion to a duration cannot overflow (1e300 or inf would end the process).
        if !(timeout > 0 && timeout <= 1_000_000) {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most 1000000, not \(timeout)")
        }
        if !(connectTimeout > 0 && connectTimeout <= 3600) {
            throw ValidationError("--connect-timeout must be a number of seconds above 0 and at most 3600, not \(connectTimeout)")
        }
    }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        let client: HTTPSClient
        let request: HTTPRequest
        let reporter: HTTPPinFailureReporter?
        do {
            (client, request, reporter) = try makeClient(output: out)
        } catch {
            out.error("ats fetch: \(error)\n")
            return 2
        }
        let status = await fetch(client, request, output: out)
        await client.shutdown()
        // A pin failure report is on its way; let it finish (bounded by its own timeouts) before the process ends.
        if let reporter {
            await reporter.shutdown()
            let s = reporter.statistics
            if verbose || s.failed > 0 { out.error("pin failure reports: \(s.delivered) delivered, \(s.failed) failed\n") }
        }
        return status
    }

    func fetch(_ client: HTTPSClient, _ request: HTTPRequest, output out: Output) async -> Int32 {
        let ct = client.configuration.certificateTransparency.status(at: client.configuration.validationTime ?? Date())
        if verbose { out.error("* Certificate Transparency: \(ct.summary)\n") }
        let response: StreamingHTTPResponse
        do throws(TransportError) { response = try await client.stream(request) } catch {
            return refused(error, ct: ct, output: out)
        }
        if verbose {
            if let proxy = client.configuration.proxy?.proxy(scheme: response.connection.scheme, host: response.connection.host) {
                out.error("* through the proxy \(proxy)\(response.connection.scheme == "https" ? " (CONNECT tunnel; the origin's TLS is end to end)" : "")\n")
            }
            out.error(Self.describe(response.connection, colors: out.errorPalette, store: anchorOptions.trustStore))
        }
        // Streamed to its file or to standard output as it arrives, so a body of any size loads and none is held in
        // memory; --json reads it to the end without keeping it.
        var file: FileHandle?
        if let output, !json {
            // Checked before the request; this is for a path that changed while the request ran.
            guard FileManager.default.createFile(atPath: output, contents: nil), let handle = FileHandle(forWritingAtPath: output) else {
                let problem = Self.outputProblem(output) ?? "it cannot be created (does its directory exist, and may you write there?)"
                out.error("ats fetch: cannot write --output '\(output)': \(problem)\n")
                return 2
            }
            file = handle
        }
        defer { try? file?.close() }
        var written = 0
        do {
            for try await chunk in response.body {
                if let file, let output {
                    do { try file.write(contentsOf: chunk) } catch {
                        out.error("ats fetch: cannot write '\(output)' after \(written) bytes: \(error)\n")
                        return 2
                    }
                } else if !json {
                    out.write(bytes: chunk)
                    // Nobody reads the body any more (`| head`): stop; the exit status says so.
                    if out.standardOutputClosed { return 0 }
                }
                written += chunk.count
            }
        } catch {
            let failure = error as? TransportError
                ?? TransportError(.connectionClosed, phase: .response, host: response.connection.host, port: response.connection.port, "\(error)")
            if let output, file != nil { out.error("ats fetch: '\(output)' is incomplete: \(written) bytes of the body were written before the failure\n") }
            return refused(failure, ct: ct, output: out)
        }
        if json {
            var report = FetchJSON(response: response)
            report.certificateTransparencyStatus = ct
            out.write(FetchJSON.encode(jsonNaming(report)) + "\n")
        }
        if response.status.code >= 400 {
            out.error("ats fetch: the server answered \(response.status.code) \(response.status.reasonPhrase)\n")
            return 1
        }
        return 0
    }

    /// Why `path` cannot be written as the body's file, or nil when it can (as far as can be told without creating it).
    static func outputProblem(_ path: String) -> String? {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "it is a directory; give the name of a file, e.g. '\((path as NSString).appendingPathComponent("body"))'" }
            return files.isWritableFile(atPath: path) ? nil : "you may not write it (check its permissions)"
        }
        let parent = (path as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        guard files.fileExists(atPath: directory, isDirectory: &isDirectory) else { return "its directory '\(directory)' does not exist" }
        guard isDirectory.boolValue else { return "'\(directory)' is not a directory" }
        return files.isWritableFile(atPath: directory) ? nil : "you may not create files in its directory '\(directory)'"
    }

    /// Reports a failed request and gives its exit status: 2 for what the user can fix in the command, 1 otherwise.
    func refused(_ error: TransportError, ct: CertificateTransparencyStatus? = nil, output out: Output) -> Int32 {
        if json {
            // The TLS library's own text (a Swift dump with build paths) only when asked for, as in the text output.
            var report = FetchJSON(error: error)
            report.certificateTransparencyStatus = ct
            if !verbose { report.error?.underlying = nil }
            out.write(FetchJSON.encode(jsonNaming(report)) + "\n")
        }
        if verbose, let verdict = error.verdict { out.error(VerdictRendering.text(verdict, host: error.host, colors: out.errorPalette, store: anchorOptions.trustStore)) }
        if verbose, let evaluation = error.atsEvaluation { out.error(Self.describe(evaluation)) }
        // The TLS library's own code and text, for whoever debugs the server; the message says it in words.
        if verbose, let reason = error.tlsReason { out.error("* TLS library reason: \(reason.rawValue)\n") }
        if verbose, let underlying = error.underlying { out.error("* underlying error: \(underlying)\n") }
        // A URL the client cannot use is the user's input error, not a refusal: said as the other input errors are.
        if error.kind == .invalidRequest && error.phase == .requirements {
            out.error("ats fetch: \(error.message)\n")
        } else {
            let place = error.host.isEmpty ? error.phase.rawValue : "\(error.phase.rawValue), \(error.host)"
            let message = FlagHints.adding(FlagHints.hint(for: error, verbose: verbose), to: error.message)
            out.error(out.errorPalette.red("✗ refused") + " \(error.kind.rawValue) (\(place)): \(message)\n")
        }
        return error.kind == .invalidRequest || error.kind == .invalidClientIdentity ? 2 : 1
    }

    func makeClient(output out: Output) throws -> (HTTPSClient, HTTPRequest, HTTPPinFailureReporter?) {
        // The URL is parsed here, once: the pins, the proxy note, the --user origin and the client all take this.
        let target: ConnectionTarget
        do { target = try HTTPSClient.parse(url, phase: .requirements) } catch { throw InputError(error.message) }
        // Input errors in the order the options were always checked; all before the client exists.
        let ats = try atsPolicy()
        let (manager, reporter) = try trustManager(for: target, output: out)
        let anchors = try anchorOptions.trustAnchors(warnings: out)
        let identity = try clientIdentity()
        var request = try request()
        request.parsedTarget = target
        // Before any connection: a POST the server has acted on must not end in "input error".
        if let output, !json, let problem = Self.outputProblem(output) { throw InputError("cannot write --output '\(output)': \(problem)") }
        let limit = Duration.milliseconds(Int64(timeout * 1000))
        let connectLimit = min(Duration.milliseconds(Int64(connectTimeout * 1000)), limit)
        var configuration = HTTPSClientConfiguration(
            ats: ats, trustManager: manager, anchors: anchors, clientIdentity: identity, challengeHandler: challengeHandler(origin: target, output: out),
            timeouts: Timeouts(connect: connectLimit, handshake: connectLimit, request: limit),
            maximumRedirects: maxRedirects, addressOverrides: resolveOptions.addressOverrides)
        configuration.revocation = revocation
        configuration.certificateTransparency = try ctOptions.options(warnings: out)
        configuration.platform = platformOption.applePlatform
        configuration.proxy = try proxyOptions.configuration()
        if configuration.proxy?.proxy(scheme: target.scheme, host: target.host) != nil,
           AddressOverrides.address(in: configuration.addressOverrides, host: target.host, port: target.port) != nil {
            out.error("note: --resolve for \(target.host) is not used: through the proxy, the proxy resolves the origin\n")
        }
        configuration.httpVersions = http11 ? .http1Only : http2 ? .http2Only : .negotiate
        return (HTTPSClient(configuration: configuration), request, reporter)
    }

    /// The ATS policy: the platform's default, none (`--no-ats`), or the `--plist`'s.
    func atsPolicy() throws -> ATSPolicy {
        let profile = platformOption.profile
        if noATS { return .disabled }
        guard let plist else { return .default(profile: profile) }
        let sources = try ConfigurationLoader().load(path: plist)
        guard let source = sources.first(where: { $0.role != .appExtension }) ?? sources.first else { throw InputError("\(plist): no configuration found") }
        return .configuration(source.configuration, profile: profile)
    }

    /// The URL's host pinned as the pin options say, and every other host the pin file names pinned as the file
    /// says, so that a redirect to one of them is checked too, as TrustKit, OkHttp and Android check every
    /// connection. A reporter when a pin set names report URIs.
    func trustManager(for target: ConnectionTarget, output out: Output) throws -> (ServerTrustManager?, HTTPPinFailureReporter?) {
        guard !pinOptions.isEmpty else { return (nil, nil) }
        let sources = try pinOptions.sources(output: out)
        let evaluator = try pinOptions.evaluator(for: target.peer, sources: sources, validation: DefaultTrustEvaluator(), output: out)
        var reporter: HTTPPinFailureReporter?
        let reports = !(evaluator?.pinnedHost.pinSet.reportURIs.isEmpty ?? true)
            || (sources.configuration?.hosts.contains { !$0.pinSet.reportURIs.isEmpty } ?? false)
        if reports {
            // Reports go through the proxy as the request does.
            reporter = HTTPPinFailureReporter(client: HTTPSClient(configuration: HTTPPinFailureReporter.defaultClientConfiguration(proxy: try proxyOptions.configuration())))
        }
        var rules: [ServerTrustManager.Rule] = []
        let pattern = HostPattern(exactly: target.peer)
        if var evaluator {
            evaluator.reporter = reporter
            evaluator.port = target.port
            rules.append(.init(pattern, evaluator))
        }
        if let configuration = sources.configuration {
            // PinOptions validated the file as it read it.
            let file = ServerTrustManager(validatedConfiguration: configuration, reporter: reporter)
            rules += file.rules.filter { $0.pattern != pattern }
        }
        return (ServerTrustManager(allHostsMustBeEvaluated: false, rules: rules), reporter)
    }

    /// The client identity of `--identity` and `--password-file`, or of `--cert` and `--key`.
    func clientIdentity() throws -> ClientIdentity? {
        if let identity, let passwordFile {
            let bytes: Data
            do { bytes = try InputFile.read(passwordFile) } catch {
                throw InputError("cannot read --password-file '\(InputFile.source(passwordFile))': \(error.reason)")
            }
            guard let text = String(data: bytes, encoding: .utf8) else { throw InputError("--password-file '\(InputFile.source(passwordFile))' is not UTF-8 text") }
            // The first line, whatever ends it: "\r\n" is one Character, so splitting on "\n" kept a CRLF file whole.
            let password = text.lines.first.map(String.init) ?? ""
            return try ClientIdentity(pkcs12File: identity, password: password)
        } else if let cert, let key {
            return try ClientIdentity(certificateFile: cert, keyFile: key)
        }
        return nil
    }

    /// The request of `--method`, `--header` and `--data`, each checked before anything is sent.
    func request() throws -> HTTPRequest {
        var requestHeaders = HTTPHeaders()
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else { throw InputError("--header \(header.debugDescription) is not 'Name: value'") }
            let name = String(header[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            if let problem = HTTPSyntax.problem(header: name, value: value) { throw InputError("--header \(header.debugDescription): \(problem)") }
            requestHeaders.add(name: name, value: value)
        }
        var body: [UInt8]?
        if let data {
            if data.hasPrefix("@") {
                let path = String(data.dropFirst())
                do { body = Array(try InputFile.read(path)) } catch {
                    throw InputError("cannot read --data file '\(InputFile.source(path))': \(error.reason)")
                }
            } else {
                body = Array(data.utf8)
            }
        }
        let verbText = method ?? (body == nil ? "GET" : "POST")
        if let problem = HTTPSyntax.problem(method: verbText) { throw InputError("--method: \(problem)") }
        return HTTPRequest(url: url, method: HTTPMethod(rawValue: verbText.uppercased()), headers: requestHeaders, body: body)
    }

    /// Answers the origin's Basic or Digest challenge with `--user`; nil without it.
    func challengeHandler(origin: ConnectionTarget, output out: Output) -> ChallengeHandler? {
        guard let user, let colon = user.firstIndex(of: ":") else { return nil }
        let name = String(user[..<colon]), password = String(user[user.index(after: colon)...])
        let url = self.url
        return { challenge in
            let space = challenge.protectionSpace
            // --user is the origin's; a proxy's credential comes only in the --proxy URL or its variable.
            if space.isProxy { return .performDefaultHandling }
            switch space.authenticationMethod {
            case .httpBasic, .httpDigest:
                // Like curl without --location-trusted: the password goes only to the URL's own origin, not to a
                // host a redirect led to. The library strips Authorization across origins; answering is ours.
                guard space.isOnOrigin(of: origin) else {
                    out.error("ats fetch: not sending --user to \(space.protocol)://\(space.host):\(space.port), which is not the origin of \(url)\n")
                    return .performDefaultHandling
                }
                return challenge.previousFailureCount == 0 ? .useCredential(.password(user: name, password: password, persistence: .none)) : .performDefaultHandling
            default:
                return .performDefaultHandling
            }
        }
    }

    // MARK: Rendering

    /// The JSON with the trust store and platform this command evaluated with.
    func jsonNaming(_ value: FetchJSON) -> FetchJSON {
        var value = value
        value.trustStore = anchorOptions.trustStore.rawValue
        value.trustStoreVersion = anchorOptions.trustStore == .apple ? AppleTrustStore.shared.version : nil
        value.platform = platformOption.applePlatform.description
        return value
    }

    static func describe(_ report: ConnectionReport, colors: Palette, store: TrustAnchors.Store = .system) -> String {
        var s = "* \(report.scheme)://\(report.host):\(report.port)\n"
        if let handshake = report.handshake {
            s += "* TLS \(handshake.tlsVersion?.rawValue ?? "unknown"), cipher suite \(handshake.cipherSuite ?? "unknown")\n"
            s += "* \(report.httpVersion) (ALPN: \(report.alpn.map { "the server chose \($0)" } ?? "the server chose none"))\n"
        }
        if let verdict = report.verdict { s += VerdictRendering.text(verdict, host: report.host, colors: colors, store: store) }
        s += describe(report.atsEvaluation)
        for note in report.notes { s += "* note: \(note)\n" }
        return s
    }

    static func describe(_ evaluation: ConnectionEvaluation) -> String {
        evaluation.reasons.map { "* ATS \($0.check): \($0.passed ? "pass" : "FAIL") — \($0.message) [\($0.because)]\n" }.joined()
    }
}

/// `ats fetch --json`.
struct FetchJSON: Encodable {
    struct ATSCheck: Encodable {
        var check: String
        var passed: Bool
        var message: String
        var because: String
    }

    struct Failure: Encodable {
        var kind: String
        var phase: String
        var host: String
        var port: Int
        var message: String
        /// BoringSSL's reason code and who must fix it, for a failed handshake.
        var tlsReason: String?
        var fixedBy: String?
        var underlying: String?
    }

    var url: String?
    var status: Int?
    var tlsVersion: String?
    var cipherSuite: String?
    var trusted: Bool?
    var chain: [VerdictRendering.ChainEntry]?
    var failures: [TrustFailure]?
    var certificateTransparency: CertificateTransparencyReport?
    /// Whether CT was enforced, and with which list (`ctLogList`): said even when the chain needed none.
    var certificateTransparencyStatus: CertificateTransparencyStatus?
    var ats: [ATSCheck]?
    var redirects: [String]?
    /// `HTTP/1.1` or `HTTP/2`.
    var httpVersion: String?
    var error: Failure?
    /// The public roots ("system" or "apple") and the Apple release whose TLS server rules applied.
    var trustStore: String?
    var trustStoreVersion: Int?
    var platform: String?

    init(response: StreamingHTTPResponse) {
        url = response.url
        status = Int(response.status.code)
        redirects = response.redirects
        httpVersion = response.connection.httpVersion
        fill(response.connection.handshake, response.connection.verdict, response.connection.atsEvaluation)
    }

    init(error: TransportError) {
        self.error = Failure(kind: error.kind.rawValue, phase: error.phase.rawValue, host: error.host, port: error.port, message: error.message,
                             tlsReason: error.tlsReason?.rawValue, fixedBy: error.tlsReason?.fixedBy.rawValue, underlying: error.underlying)
        fill(error.handshake, error.verdict, error.atsEvaluation)
    }

    private mutating func fill(_ handshake: HandshakeSummary?, _ verdict: TrustVerdict?, _ evaluation: ConnectionEvaluation?) {
        tlsVersion = handshake?.tlsVersion?.rawValue
        cipherSuite = handshake?.cipherSuite
        trusted = verdict?.isTrusted
        chain = verdict.map(VerdictRendering.chainEntries)
        failures = verdict?.failures
        certificateTransparency = verdict?.certificateTransparency
        ats = evaluation?.reasons.map { ATSCheck(check: $0.check, passed: $0.passed, message: $0.message, because: $0.because.description) }
    }

    static func encode(_ value: FetchJSON) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(value) else { return #"{"error":{"kind":"internalError"}}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
