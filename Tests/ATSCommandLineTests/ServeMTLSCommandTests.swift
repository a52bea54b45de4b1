import ArgumentParser
import Foundation
import TestSupport
import TestServersSupport
import Testing
import TransportServer
import TransportTrust

@testable import ATSCommandLine

/// `ats serve --mtls`: its options, what they build, and the exit status of bad input.
@Suite struct ServeMTLSCommandTests {
    func run(_ arguments: [String]) async -> (Int32, String) {
        let output = Output.capture()
        let status = await ATSCommand.run(arguments: ["serve"] + arguments, output: output)
        return (status, output.standardError)
    }

    @Test func badInputExitsTwoWithAMessage() async throws {
        let dir = try TemporaryDirectory()
        let anchors = try dir.write("ca.pem", PKI.root("Client Root CA").pem)
        let cases: [([String], String)] = [
            (["--client-anchors", anchors], "go with --mtls"),
            (["--mtls"], "--mtls needs --client-anchors"),
            (["--mtls", "--client-anchors", anchors, "--cert", anchors], "--cert and --key go together"),
            (["--mtls", "--client-anchors", anchors, "--client-mode", "none"], "would verify nothing"),
            (["--mtls", "--client-anchors", anchors, "--port", "70000"], "--port must be"),
            (["--mtls", "--client-anchors", anchors, "--case", "good"], "which --mtls does not serve"),
            // Options of the mutual-TLS server alone would otherwise be ignored in silence.
            (["--client-crl", anchors], "go with --mtls"),
            (["--client-pin-scope", "leaf"], "go with --mtls"),
            (["--port", "9000"], "go with --mtls"),
            (["--handshake-timeout", "5"], "go with --mtls"),
            (["--request-timeout", "5"], "go with --mtls"),
            (["--mtls", "--client-anchors", anchors, "--request-timeout", "0"], "--request-timeout must be"),
            (["--mtls", "--client-anchors", anchors, "--handshake-timeout", "601"], "--handshake-timeout must be"),
            // The modes are listed (review-api F12).
            (["--mtls", "--client-anchors", anchors, "--client-revocation", "maybe"], "'off', 'soft' or 'hard'"),
        ]
        for (arguments, message) in cases {
            let (status, error) = await run(arguments)
            #expect(status == 2, "\(arguments)")
            #expect(error.contains(message), "\(arguments): \(error)")
        }
    }

    @Test func theOptionsBuildThePolicy() throws {
        let dir = try TemporaryDirectory()
        let root = PKI.root("Client Root CA")
        let leaf = MTLSFixture.clientLeaf(root)
        let anchors = try dir.write("ca.pem", root.pem)
        let pin = "sha256/" + (leaf.input.spkiSHA256Base64 ?? "")
        let options = try MutualTLSServeOptions.parse([
            "--mtls", "--client-anchors", anchors, "--client-pin", pin, "--client-pin-scope", "leaf",
            "--client-name", "uri:spiffe://example.org/*", "--client-name", "dns:*.internal", "--client-mode", "optional",
        ])
        let policy = try options.policy(output: .capture())
        #expect(policy.anchors.custom.map(\.der) == [root.der])
        #expect(policy.pins?.leafPins.map(\.description) == [pin])
        #expect(policy.nameRules.map(\.description) == ["uri:spiffe://example.org/*", "dns:*.internal"])
        #expect(policy.mode == .optional)
        #expect(policy.revocation.mode == .off)
    }

    @Test func aClientCRLTurnsSoftFailOn() throws {
        let dir = try TemporaryDirectory()
        let root = PKI.root("Client Root CA")
        let anchors = try dir.write("ca.pem", root.pem)
        let crl = try dir.write("ca.crl", CRLBuilder(issuer: root).pem(by: root.key))
        let policy = try MutualTLSServeOptions.parse(["--mtls", "--client-anchors", anchors, "--client-crl", crl]).policy(output: .capture())
        #expect(policy.revocation.mode == .soft)
        #expect(policy.revocation.crls.count == 1)
        let off = try MutualTLSServeOptions.parse(["--mtls", "--client-anchors", anchors, "--client-crl", crl, "--client-revocation", "off"])
        #expect { try off.policy(output: .capture()) } throws: { "\($0)".contains("--client-crl with --client-revocation off") }
    }

    /// --cert is the server's chain: its error must not speak of the client's certificate (review-api F10).
    @Test func aCertThatIsNotPEMNamesTheLeafNotTheClient() throws {
        let dir = try TemporaryDirectory()
        let anchors = try dir.write("ca.pem", PKI.root("Client Root CA").pem)
        let garbage = try dir.write("garbage", bytes: Array(repeating: 0x31, count: 64))
        let options = try MutualTLSServeOptions.parse(["--mtls", "--client-anchors", anchors, "--cert", garbage, "--key", garbage])
        #expect { try options.serverIdentity(directory: dir.path) } throws: { error in
            "\(error)".contains("--cert/--key: '\(garbage)' is not a PEM certificate chain") && "\(error)".contains("the leaf (end-entity) certificate first")
                && !"\(error)".contains("client")
        }
    }

    @Test func badPinsNamesAndOCSPResponsesAreInputErrors() throws {
        let dir = try TemporaryDirectory()
        let anchors = try dir.write("ca.pem", PKI.root("Client Root CA").pem)
        let notOCSP = try dir.write("r.der", bytes: [0x30, 0x00])
        let notCRL = try dir.write("c.crl", bytes: [0x30, 0x00])
        for (extra, message) in [(["--client-pin", "sha256/short"], "--client-pin"), (["--client-name", "nofield"], "--client-name: the name rule 'nofield'"),
                                 (["--client-ocsp-response", notOCSP], "is not an OCSP response"),
                                 (["--client-crl", notCRL], "'\(notCRL)' is not a usable CRL"),
                                 (["--client-crl", notCRL, "--client-revocation", "off"], "is not a usable CRL")] {
            let options = try MutualTLSServeOptions.parse(["--mtls", "--client-anchors", anchors] + extra)
            let error = #expect(throws: (any Error).self) { try options.policy(output: .capture()) }
            #expect(error.map { "\($0)".contains(message) } == true, "\(String(describing: error))")
        }
    }

    /// The tool itself, as a user runs it: it prints its URL, answers curl with the verdict, prints refusals, and stops
    /// on Ctrl-C with status 0.
    @Test(.enabled(if: curlPath != nil && ATSTool.built != nil)) func theToolServesVerdictsAndPrintsRefusals() async throws {
        let f = try MTLSFixture()
        try f.write(MTLSFixture.clientLeaf(f.clientCA, eku: [.serverAuth]), as: "serverauth")
        let serve = try RunningProcess(try ATSTool.executable(), [
            "serve", "--mtls", "--client-anchors", f.directory.file("client-anchors.pem"), "--port", "0",
            "--directory", f.directory.path, "--client-name", "uri:spiffe://example.org/*", "--handshake-timeout", "120",
        ])
        #expect(await serve.waitFor("serving until interrupted"), "\(serve.output)\(serve.errors)")
        let url = try #require(serve.output.split(separator: "\n").first { $0.hasPrefix("mutual TLS server: ") }?
            .split(separator: " ").last.map(String.init))
        func curl(_ name: String) async throws -> ProcessResult {
            try await runProcess(curlPath ?? "curl", ["-sS", "--max-time", "180", "--cacert", f.directory.file("server-ca.pem"),
                                                     "--cert", f.directory.file("\(name).pem"), "--key", f.directory.file("\(name)-key.pem"), url])
        }
        let good = try await curl("client")
        #expect(good.output.contains("\"verified\" : true"), "\(good.output)")
        #expect(good.output.contains("name rule uri:spiffe://example.org/* matched"), "\(good.output)")
        _ = try await curl("serverauth")
        #expect(await serve.waitFor("client refused: reason=extendedKeyUsage", onStandardError: true), "\(serve.errors)")
        serve.interrupt()
        #expect(await serve.exitStatus() == 0)
        #expect(serve.output.contains("stopping"))
    }
}
