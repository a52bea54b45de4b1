import TestSupport
import TestServersSupport
import ATSCommandLine
import Crypto
import Foundation
import NIOSSL
import Testing

@testable import TransportClient

/// `ats fetch` and `ats pins https://…`, driven in-process against local servers.
@Suite struct FetchCommandTests {
    let host = "www.example.test"

    private func run(_ arguments: [String], color: Bool = false, errorColor: Bool? = nil) async -> (Int32, Output) {
        let output = Output.capture(color: color, errorColor: errorColor)
        let status = await ATSCommand.run(arguments: withGenerousTimeLimits(arguments), output: output)
        return (status, output)
    }

    @Test func fetchPrintsTheBodyAndTheHandshakeWhenVerbose() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("fetched") }
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let anchors = try dir.write("root.pem", pki.root.pem)
            let (status, out) = await run(["fetch", "https://\(host):\(server.port)/", "--anchors", anchors,
                                           "--resolve", "\(host):127.0.0.1", "--verbose"])
            #expect(status == 0, "\(out.standardError)")
            #expect(out.standardOutput == "fetched")
            #expect(out.standardError.contains("TLS TLSv1.3"))
            #expect(out.standardError.contains("SPKI sha256/\(ServerPKI.pin(pki.leaf))"))
            #expect(out.standardError.contains("ATS tls-version: pass"))
        }
    }

    /// --json, --output and --quiet as on every report command: --output takes the JSON when --json asks for it
    /// (it was left unwritten), and --quiet prints nothing but keeps the status.
    @Test func fetchTakesTheReportOptionsOfEveryReportCommand() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("fetched") }
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let base = ["fetch", "https://\(host):\(server.port)/", "--anchors", try dir.write("root.pem", pki.root.pem),
                        "--resolve", "\(host):127.0.0.1"]
            let (jsonStatus, jsonOut) = await run(base + ["--json", "--output", dir.file("report.json")])
            #expect(jsonStatus == 0, "\(jsonOut.standardError)")
            #expect(jsonOut.standardOutput.isEmpty)
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("report.json")))) as? [String: Any]
            #expect(object?["status"] as? Int == 200)

            let (bodyStatus, bodyOut) = await run(base + ["--output", dir.file("body.txt")])
            #expect(bodyStatus == 0 && bodyOut.standardOutput.isEmpty)
            #expect(try String(contentsOfFile: dir.file("body.txt"), encoding: .utf8) == "fetched")

            for quiet in [["--quiet"], ["--quiet", "--json"]] {
                let (status, out) = await run(base + quiet)
                #expect(status == 0, "\(out.standardError)")
                #expect(out.standardOutput.isEmpty && out.standardError.isEmpty)
            }
            let (refused, refusedOut) = await run(base + ["--pin", "sha256/" + String(repeating: "A", count: 43) + "=", "--quiet"])
            #expect(refused == 1)
            #expect(refusedOut.standardOutput.isEmpty && refusedOut.standardError.contains("refused"), "\(refusedOut.standardError)")

            // What goes to standard error is coloured when standard error is a terminal, whatever standard output is.
            let wrongPin = base + ["--pin", "sha256/" + String(repeating: "A", count: 43) + "=", "--verbose"]
            let (_, plainError) = await run(wrongPin, color: true, errorColor: false)
            #expect(plainError.standardError.contains("✗ refused") && !plainError.standardError.contains("\u{1B}["), "\(plainError.standardError)")
            let (_, colouredError) = await run(wrongPin + ["--output", dir.file("nothing.txt")], color: false, errorColor: true)
            #expect(colouredError.standardError.contains("\u{1B}[1;31m✗ refused"), "\(colouredError.standardError)")
        }
    }

    @Test func fetchRefusalsExitOneAndUsageErrorsTwo() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let anchors = try dir.write("root.pem", pki.root.pem)
            let base = ["fetch", "https://\(host):\(server.port)/", "--anchors", anchors, "--resolve", "\(host):127.0.0.1"]

            let (pinned, pinnedOut) = await run(base + ["--pin", "sha256/" + ServerPKI.pin(ServerPKI().leaf), "--json"])
            #expect(pinned == 1)
            #expect(pinnedOut.standardOutput.contains("\"kind\" : \"pinMismatch\""))
            #expect(pinnedOut.standardError.contains("pinMismatch"))

            let (matching, _) = await run(base + ["--pin", "sha256/" + ServerPKI.pin(pki.intermediate)])
            #expect(matching == 0)

            let (untrusted, untrustedOut) = await run(["fetch", "https://\(host):\(server.port)/", "--anchors", try dir.write("other.pem", ServerPKI().root.pem),
                                                       "--resolve", "\(host):127.0.0.1"])
            #expect(untrusted == 1)
            #expect(untrustedOut.standardError.contains("serverTrustRefused"))

            let (usage, usageOut) = await run(base + ["--identity", "id.p12"])
            #expect(usage == 2)
            #expect(usageOut.standardError.contains("--password-file"))
            let (missingAnchors, _) = await run(["fetch", "https://\(host):\(server.port)/", "--anchors", dir.file("nope.pem")])
            #expect(missingAnchors == 2)
        }
    }

    /// The client applies Apple's TLS server rules of --platform, and --json names the platform and the trust store.
    @Test func fetchAppliesThePlatformsRulesAndNamesTheTrustStore() async throws {
        let pki = ServerPKI(leafNotAfter: PKI.notBefore.addingTimeInterval(900 * 86_400))
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("fetched") }
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let base = ["fetch", "https://\(host):\(server.port)/", "--resolve", "\(host):127.0.0.1"]
            let anchors = ["--anchors", try dir.write("root.pem", pki.root.pem)]

            let (refused, refusedOut) = await run(base + anchors + ["--json"])
            #expect(refused == 1)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(refusedOut.standardOutput.utf8)) as? [String: Any])
            let failures = try #require(object["failures"] as? [[String: Any]])
            #expect(failures.map { $0["code"] as? String } == ["validityPeriodTooLong"], "\(failures)")
            #expect(object["platform"] as? String == "iOS 26")
            #expect(object["trustStore"] as? String == "system")

            let (ios12, ios12Out) = await run(base + anchors + ["--platform", "ios12"])
            #expect(ios12 == 0, "\(ios12Out.standardError)")
            #expect(ios12Out.standardOutput == "fetched")

            // The test CA is in no public store: Apple's refuses it.
            let (apple, appleOut) = await run(base + ["--trust-store", "apple", "--platform", "ios12", "--json"])
            #expect(apple == 1)
            let appleObject = try #require(try JSONSerialization.jsonObject(with: Data(appleOut.standardOutput.utf8)) as? [String: Any])
            #expect(appleObject["trustStore"] as? String == "apple")
            #expect(appleObject["trustStoreVersion"] as? Int == 2025072000)
            #expect(appleObject["platform"] as? String == "iOS 12")
        }
    }

    @Test func fetchReportsHTTPErrorsAsRefusals() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("gone", status: .notFound) }
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let (status, out) = await run(["fetch", "https://\(host):\(server.port)/", "--anchors", try dir.write("root.pem", pki.root.pem),
                                           "--resolve", "\(host):127.0.0.1", "--output", dir.file("body.txt")])
            #expect(status == 1)
            #expect(out.standardError.contains("404"))
            #expect(try String(contentsOfFile: dir.file("body.txt"), encoding: .utf8) == "gone")
        }
    }

    @Test func userIsSentOnlyToTheURLsOriginNotWhereARedirectLeads() async throws {
        let other = "other.example.test"
        let pki = ServerPKI(dns: [host, other])
        let basic = "Basic " + Data("user:pw".utf8).base64EncodedString()
        let challenge = TestResponse(status: .unauthorized, headers: [("www-authenticate", "Basic realm=\"r\"")], body: [])
        let elsewhere = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            request.head.headers.first(name: "authorization") == basic ? .text("leaked") : challenge
        }
        try await withShutdown({ await elsewhere.shutdown() }) {
            let first = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
                switch request.head.uri {
                case "/to-other-host": TestResponse(status: .found, headers: [("location", "https://\(other):\(elsewhere.port)/")], body: [])
                case "/to-other-port": TestResponse(status: .found, headers: [("location", "https://\(host):\(elsewhere.port)/")], body: [])
                default: request.head.headers.first(name: "authorization") == basic ? .text("welcome") : challenge
                }
            }
            try await withShutdown({ await first.shutdown() }) {
                let dir = try TemporaryDirectory()
                let base = ["fetch", "--anchors", try dir.write("root.pem", pki.root.pem), "--resolve", "\(host):127.0.0.1",
                            "--resolve", "\(other):127.0.0.1", "--user", "user:pw"]

                let (own, ownOut) = await run(base + ["https://\(host):\(first.port)/"])
                #expect(own == 0, "\(ownOut.standardError)")
                #expect(ownOut.standardOutput == "welcome")

                // Another host, and the same host on another port, are other origins: their 401 is the answer (curl without
                // --location-trusted).
                for path in ["/to-other-host", "/to-other-port"] {
                    let (status, out) = await run(base + ["https://\(host):\(first.port)\(path)"])
                    #expect(status == 1, "\(path): \(out.standardError)")
                    #expect(out.standardError.contains("not sending --user"), "\(out.standardError)")
                    #expect(out.standardError.contains("401"), "\(out.standardError)")
                }
                #expect(elsewhere.requests.count == 2)
                #expect(elsewhere.requests.allSatisfy { !$0.head.headers.contains(name: "authorization") })
            }
        }
    }

    @Test(arguments: [
        (["--header", "Bad Name: x"], "the header name \"Bad Name\" is not an HTTP token"),
        (["--header", "X-Note: a\r\nInjected: 1"], "the value of header 'X-Note' holds the control character U+000D (a line break)"),
        (["--method", "GE T"], "--method: the method \"GE T\" is not an HTTP token"),
    ])
    func anInvalidHeaderOrMethodIsAUsageErrorAndNothingIsSent(_ arguments: [String], _ words: String) async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let (status, out) = await run(["fetch", "https://\(host):\(server.port)/", "--anchors", try dir.write("root.pem", pki.root.pem),
                                           "--resolve", "\(host):127.0.0.1"] + arguments)
            #expect(status == 2)
            #expect(out.standardError.contains(words), "\(out.standardError)")
            #expect(server.connectionCount == 0)
        }
    }

    /// --output is checked before any connection (review-api F7): a POST the server acted on used to end in "cannot
    /// write", exit 2. An existing directory is called one (F12).
    @Test func anOutputThatCannotBeWrittenIsAUsageErrorAndNothingIsSent() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let base = ["fetch", "https://\(host):\(server.port)/", "--anchors", try dir.write("root.pem", pki.root.pem),
                        "--resolve", "\(host):127.0.0.1", "--data", "order=1"]
            let (missing, missingOut) = await run(base + ["--output", dir.file("nowhere/body.txt")])
            #expect(missing == 2)
            #expect(missingOut.standardError.contains("ats fetch: cannot write --output '\(dir.file("nowhere/body.txt"))': its directory '\(dir.file("nowhere"))' does not exist"),
                    "\(missingOut.standardError)")
            let (directory, directoryOut) = await run(base + ["--output", dir.path])
            #expect(directory == 2)
            #expect(directoryOut.standardError.contains("cannot write --output '\(dir.path)': it is a directory; give the name of a file"), "\(directoryOut.standardError)")
            #expect(server.connectionCount == 0)
        }
    }

    /// --revocation lists its values when one is wrong (review-api F12).
    @Test func anUnknownRevocationModeListsTheModes() async {
        let (status, out) = await run(["fetch", "https://127.0.0.1:1/", "--revocation", "maybe"])
        #expect(status == 2)
        #expect(out.standardError.contains("'off', 'soft' or 'hard'"), "\(out.standardError)")
    }

    /// A URL the client cannot use is an input error said as one, not a refusal with an enum name and an empty
    /// host (review-api F9).
    @Test(arguments: [("not a url", "\"not a url\" is not a URL: it has a space"), ("https://", "'https://' is not an absolute http or https URL"),
                      ("wss://example.com/", "'wss' URLs are not supported"), ("ftp://example.com/", "'ftp' URLs are not supported")])
    func anUnusableURLIsAnInputErrorNotARefusal(_ url: String, _ words: String) async {
        let (status, out) = await run(["fetch", url])
        #expect(status == 2)
        #expect(out.standardError.hasPrefix("ats fetch: " + words), "\(out.standardError)")
        #expect(!out.standardError.contains("refused") && !out.standardError.contains("invalidRequest") && !out.standardError.contains(", )"),
                "\(out.standardError)")
    }

    @Test func resolveTakesCurlsHostPortAddressAndTheHostAddressForm() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("resolved") }
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let anchors = try dir.write("root.pem", pki.root.pem)
            for entry in ["\(host):\(server.port):127.0.0.1", "\(host.uppercased()).:\(server.port):[127.0.0.1]", "\(host):127.0.0.1"] {
                let (status, out) = await run(["fetch", "https://\(host):\(server.port)/", "--anchors", anchors, "--resolve", entry])
                #expect(status == 0, "\(entry): \(out.standardError)")
                #expect(out.standardOutput == "resolved")
            }
        }
    }

    /// The client looks an override up by the URL's host in A-label form, so the entry's host must be read the same way.
    @Test func resolveTakesAUnicodeHostAsTheURLDoes() async throws {
        let pki = ServerPKI(dns: ["xn--bcher-kva.test"])
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("resolved") }
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let anchors = try dir.write("root.pem", pki.root.pem)
            for (url, entry) in [("https://bücher.test:\(server.port)/", "BÜCHER.test:127.0.0.1"),
                                 ("https://xn--bcher-kva.test:\(server.port)/", "bücher.test:\(server.port):127.0.0.1")] {
                let (status, out) = await run(["fetch", url, "--anchors", anchors, "--resolve", entry])
                #expect(status == 0, "\(url) with \(entry): \(out.standardError)")
                #expect(out.standardOutput == "resolved")
            }
        }
    }

    @Test(arguments: ["b.test:9443:localhost", "b.test:9443:", "b.test:localhost", "b.test", ":127.0.0.1", "b.test:70000:127.0.0.1",
                      "b.test:9443:127.1", "[::1]:443:127.0.0.1"])
    func resolveRefusesAnAddressThatIsNotAnIPLiteral(_ entry: String) async {
        // The URL is an IP literal on a closed port: an entry let through would end in a refused connection (exit 1),
        // with nothing looked up.
        let (status, out) = await run(["fetch", "https://127.0.0.1:1/", "--resolve", entry])
        #expect(status == 2, "\(entry): \(out.standardError)")
        #expect(out.standardError.contains("--resolve"), "\(out.standardError)")
    }

    /// A pin file pins every host it names, not only the URL's: a redirect to another of its hosts, served from a
    /// CA the file does not pin, is refused, as TrustKit, OkHttp and Android check every connection (review-pins F2).
    @Test func aRedirectToAnotherPinnedHostIsCheckedAgainstItsPins() async throws {
        let first = ServerPKI(dns: ["a.example.test"]), second = ServerPKI(dns: ["b.example.test"])
        let target = try await TestServer.https(chain: second.served, key: second.leaf.key) { _ in .text("secret") }
        try await withShutdown({ await target.shutdown() }) {
            let origin = try await TestServer.https(chain: first.served, key: first.leaf.key) { _ in
                TestResponse(status: .found, headers: [("location", "https://b.example.test:\(target.port)/secret")], body: [])
            }
            try await withShutdown({ await origin.shutdown() }) {
                let dir = try TemporaryDirectory()
                let anchors = try dir.write("roots.pem", first.root.pem + second.root.pem)
                let base = ["fetch", "https://a.example.test:\(origin.port)/", "--anchors", anchors,
                            "--resolve", "a.example.test:127.0.0.1", "--resolve", "b.example.test:127.0.0.1"]
                let pinsFirst = try dir.write("pins.txt", "**.example.test sha256/\(ServerPKI.pin(first.intermediate))\n")
                let (refused, out) = await run(base + ["--pin-file", pinsFirst])
                #expect(refused == 1, "\(out.standardError)")
                #expect(out.standardError.contains("pinMismatch"), "\(out.standardError)")
                #expect(out.standardOutput.isEmpty)
                // Pinning both CAs lets it through; a file that names only the origin leaves the target unpinned.
                let both = try dir.write("both.txt", "**.example.test sha256/\(ServerPKI.pin(first.intermediate)) sha256/\(ServerPKI.pin(second.intermediate))\n")
                let (allowed, allowedOut) = await run(base + ["--pin-file", both])
                #expect(allowed == 0, "\(allowedOut.standardError)")
                #expect(allowedOut.standardOutput == "secret")
                let originOnly = try dir.write("origin.txt", "a.example.test sha256/\(ServerPKI.pin(first.intermediate))\n")
                let (unpinned, unpinnedOut) = await run(base + ["--pin-file", originOnly])
                #expect(unpinned == 0, "\(unpinnedOut.standardError)")
            }
        }
    }

    @Test func aRedirectThatCannotBeFollowedIsARefusalNotAUsageError() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in
            TestResponse(status: .found, headers: [("location", "ftp://127.0.0.1/x")], body: [])
        }
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let (status, out) = await run(["fetch", "https://\(host):\(server.port)/", "--anchors", try dir.write("root.pem", pki.root.pem),
                                           "--resolve", "\(host):127.0.0.1"])
            #expect(status == 1)
            #expect(out.standardError.contains("malformedResponse (redirect, \(host))"), "\(out.standardError)")
        }
    }

    @Test func aBodyLargerThanTheClientsMemoryLimitIsStreamedToTheFileOrStandardOutput() async throws {
        let pki = ServerPKI()
        // Over HTTPSClientConfiguration's 16 MiB default, and every byte value, so that text decoding would show.
        let pattern = (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var bytes = Data(capacity: 17 << 20)
        for _ in 0..<((17 << 20) / pattern.count) { bytes.append(contentsOf: pattern) }
        let body = [UInt8](bytes)
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in TestResponse(body: body) }
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let base = ["fetch", "https://\(host):\(server.port)/", "--anchors", try dir.write("root.pem", pki.root.pem),
                        "--resolve", "\(host):127.0.0.1", "--timeout", "120", "--connect-timeout", "60"]

            let (toFile, fileOut) = await run(base + ["--output", dir.file("big.bin")])
            #expect(toFile == 0, "\(fileOut.standardError)")
            let written = try Data(contentsOf: URL(fileURLWithPath: dir.file("big.bin")))
            #expect(written.count == body.count && SHA256.hash(data: written) == SHA256.hash(data: body))

            let (toStandardOutput, out) = await run(base)
            #expect(toStandardOutput == 0, "\(out.standardError)")
            #expect(out.standardOutputBytes.count == body.count && SHA256.hash(data: out.standardOutputBytes) == SHA256.hash(data: body))
        }
    }

    @Test(.enabled(if: OpenSSLCommand.isAvailable))
    func aPasswordFileWithCRLFLineEndsGivesItsFirstLine() async throws {
        let pki = ServerPKI()
        let clientCA = PKI.root("Client CA")
        let clientLeaf = clientCA.leaf("client", dns: [], extendedKeyUsage: [.clientAuth])
        let ca = try NIOSSLCertificate(bytes: clientCA.der, format: .der)
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key, responder: { _ in .text("mutual") }, configure: { tls in
            tls.certificateVerification = .noHostnameVerification
            tls.trustRoots = .certificates([ca])
        })
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            try dir.write("c.pem", clientLeaf.pem)
            try dir.write("k.pem", clientLeaf.key.pemString)
            try OpenSSLCommand.run(["pkcs12", "-export", "-in", "c.pem", "-inkey", "k.pem", "-passout", "pass:right", "-out", "id.p12"], in: dir.url)
            let (status, out) = await run(["fetch", "https://\(host):\(server.port)/", "--anchors", try dir.write("root.pem", pki.root.pem),
                                           "--resolve", "\(host):127.0.0.1", "--identity", dir.file("id.p12"),
                                           "--password-file", try dir.write("password.txt", "right\r\nsecond line\r\n")])
            #expect(status == 0, "\(out.standardError)")
            #expect(out.standardOutput == "mutual")
        }
    }

    @Test func pinsFromAURLListTheChainTheServerPresents() async throws {
        let pki = ServerPKI()
        // Even an untrusted server's chain is listed: pins are read, not trusted.
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        await withShutdown({ await server.shutdown() }) {
            // A generous limit: the whole package's tests share two cores.
            let (status, out) = await run(["pins", "https://127.0.0.1:\(server.port)", "--timeout", "60"])
            #expect(status == 0, "\(out.standardError)")
            let lines = out.standardOutput.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines.first?.hasPrefix("sha256/\(ServerPKI.pin(pki.leaf))") == true)
            #expect(lines.last?.hasPrefix("sha256/\(ServerPKI.pin(pki.intermediate))") == true)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func pinsFromAStallingServerEndAtTheTimeoutWithAnInputError() async throws {
        let server = try await TestServer.raw(.stall)
        await withShutdown({ await server.shutdown() }) {
            let (status, out) = await run(["pins", "https://127.0.0.1:\(server.port)", "--timeout", "0.5"])
            #expect(status == 2)
            // The limit given, not the 10 s default, ended it. (Said by the message, not timed: on a loaded machine the
            // test's own scheduling can take longer than the limit.)
            #expect(out.standardError.contains("no certificate chain was received within 0.5 s"), "\(out.standardError)")
            #expect(out.standardError.contains("longer --timeout"), "\(out.standardError)")
        }
    }

    @Test(arguments: ["0", "-1", "nan", "7200"])
    func pinsRejectsATimeoutOutOfRange(_ value: String) async {
        let (status, out) = await run(["pins", "https://127.0.0.1:1", "--timeout", value])
        #expect(status == 2)
        #expect(out.standardError.contains("--timeout"), "\(out.standardError)")
    }

    @Test(arguments: ["--timeout=0", "--timeout=-1", "--timeout=nan", "--timeout=inf", "--timeout=1e300",
                      "--connect-timeout=0", "--connect-timeout=7200", "--connect-timeout=inf"])
    func fetchRejectsATimeLimitOutOfRange(_ option: String) async {
        let (status, out) = await run(["fetch", "https://127.0.0.1:1/", option])
        #expect(status == 2, "\(option): \(out.standardError)")
        #expect(out.standardError.contains(option.prefix { $0 != "=" } + " must be"), "\(out.standardError)")
    }

    /// Through a proxy the origin's name is the proxy's to resolve: a --resolve entry for it is said to be unused.
    @Test func aResolveEntryTheProxyMakesUnusedIsNamed() async throws {
        let closedPort = try ClosedPort()
        defer { closedPort.close() }
        let closed = closedPort.port
        let (status, out) = await run(["fetch", "https://www.example.test/", "--proxy", "http://127.0.0.1:\(closed)",
                                       "--resolve", "www.example.test:127.0.0.1"])
        #expect(status == 1, "\(out.standardError)")
        #expect(out.standardError.contains("note: --resolve for www.example.test is not used: through the proxy, the proxy resolves the origin"), "\(out.standardError)")
    }

    /// `--no-ats --plist FILE` used to run without the plist and without a word; no connection is made.
    @Test func noATSWithAPlistIsAUsageError() async {
        let (status, out) = await run(["fetch", "https://127.0.0.1:1/", "--no-ats", "--plist", "Info.plist"])
        #expect(status == 2)
        #expect(out.standardError.contains("--no-ats applies no ATS rules, so --plist would not be read"), "\(out.standardError)")
    }

    /// "-1" after a space used to be taken for an option: "Missing value for '--timeout'".
    @Test(arguments: [["--timeout", "-1"], ["--connect-timeout", "-1"], ["--max-redirects", "-1"]])
    func fetchSaysANegativeNumberIsOutOfRange(_ option: [String]) async {
        let (status, out) = await run(["fetch", "https://127.0.0.1:1/"] + option)
        #expect(status == 2)
        #expect(out.standardError.contains(option[0] + " must be") && !out.standardError.contains("Missing value"), "\(out.standardError)")
    }

    @Test func connectTimeoutLimitsTheHandshake() async throws {
        let server = try await TestServer.raw(.stall)
        await withShutdown({ await server.shutdown() }) {
            let (status, out) = await run(["fetch", "https://127.0.0.1:\(server.port)/", "--timeout", "60", "--connect-timeout", "1.5"])
            #expect(status == 1)
            #expect(out.standardError.contains("the TLS handshake did not finish within 1.5 s"), "\(out.standardError)")
        }
    }
}
