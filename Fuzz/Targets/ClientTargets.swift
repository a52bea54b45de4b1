import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOSSL
import TransportClient
import TransportTrust

extension FuzzTarget {
    /// A PKCS#12 bundle (password `fuzz`) loaded as a client identity.
    static let identityPKCS12 = FuzzTarget(name: "identity-pkcs12", summary: "PKCS#12 bundle → ClientIdentity") { bytes in
        guard let identity = try? ClientIdentity(pkcs12: bytes, password: "fuzz") else { return }
        if identity.certificateChain.isEmpty { violated("an identity loaded without a certificate") }
    }

    /// A PEM private key for the fixture leaf, plain and with the password `fuzz`.
    static let identityPEMKey = FuzzTarget(name: "identity-pem-key", summary: "PEM private key → ClientIdentity") { bytes in
        for password in [nil, "fuzz"] as [String?] {
            guard let identity = try? ClientIdentity(certificatePEM: Fixtures.ocspLeafPEM, keyPEM: bytes, keyPassword: password) else { continue }
            checkIdentity(identity)
        }
    }

    /// A PEM certificate chain for the fixture key: whatever loads must start with a certificate for that key.
    static let identityPEMChain = FuzzTarget(name: "identity-pem-chain", summary: "PEM certificate chain → ClientIdentity") { bytes in
        guard let identity = try? ClientIdentity(certificatePEM: bytes, keyPEM: Fixtures.ocspLeafKeyPEM) else { return }
        checkIdentity(identity)
    }

    static let leafKeyInfo = Fixtures.ocspLeaf.first?.raw?.subjectPublicKeyInfo

    static func checkIdentity(_ identity: ClientIdentity) {
        guard let first = identity.certificateChain.first else { violated("an identity loaded without a certificate") }
        guard let der = try? first.toDERBytes(), let raw = try? RawCertificate(der: der) else { return }
        if raw.subjectPublicKeyInfo != leafKeyInfo { violated("an identity loaded with a key that is not its certificate's") }
    }

    /// The first bytes of a TLS server, in chunks of 1 to 16 bytes (the first input byte), through the ServerHello
    /// observer: it must pass every byte on unchanged, and report a version only for the versions it names.
    static let serverHello = FuzzTarget(name: "server-hello", summary: "server's first TLS records → ServerHelloObserver") { bytes in
        guard let first = bytes.first else { return }
        let data = Array(bytes.dropFirst()), step = Int(first % 16) + 1
        let channel = EmbeddedChannel()
        guard let seen = try? ClientPipelineProbe.addServerHelloObserver(to: channel) else { violated("the observer cannot be added") }
        var passed: [UInt8] = []
        for start in stride(from: 0, to: data.count, by: step) {
            do { try channel.writeInbound(channel.allocator.buffer(bytes: data[start..<min(start + step, data.count)])) } catch {
                violated("the observer raised \(error)")
            }
            while let out = try? channel.readInbound(as: ByteBuffer.self) { passed += out.readableBytesView }
        }
        _ = try? channel.finish()
        if passed != data { violated("the observer changed the bytes it passed on") }
        if let hello = seen()?.hello {
            let named: [UInt16] = [0x0301, 0x0302, 0x0303, 0x0304]
            if (hello.version != nil) != named.contains(hello.wireVersion) { violated("version \(String(describing: hello.version)) for wire version \(hello.wireVersion)") }
            _ = hello.cipherSuiteName
        }
    }

    /// A server's HTTP/1.1 response, in chunks as `server-hello` takes them, through NIO's codec and the client's exchange
    /// handler, with a body limit of 4 KiB. When the connection closes, the exchange must have ended, and a response
    /// that succeeded must respect the limit.
    static let httpResponse = FuzzTarget(name: "http-response", summary: "HTTP/1.1 response → NIO codec → ExchangeHandler (EmbeddedChannel)") { bytes in
        guard let first = bytes.first else { return }
        let data = Array(bytes.dropFirst()), step = Int(first % 16) * 64 + 1, limit = 4096
        let channel = EmbeddedChannel()
        let ended = NIOLockedValueBox<ClientPipelineProbe.ExchangeOutcome?>(nil)
        do {
            _ = try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
            let outcome = try ClientPipelineProbe.startExchange(on: channel, limit: limit)
            outcome.whenSuccess { value in ended.withLockedValue { $0 = value } }
        } catch { violated("the exchange cannot start: \(error)") }
        while (try? channel.readOutbound(as: ByteBuffer.self)) != nil {}
        for start in stride(from: 0, to: data.count, by: step) where channel.isActive {
            // A response NIO refuses is thrown here as well as handed to the handler; the handler's outcome is what counts.
            _ = try? channel.writeInbound(channel.allocator.buffer(bytes: data[start..<min(start + step, data.count)]))
        }
        _ = try? channel.finish()
        guard let outcome = ended.withLockedValue({ $0 }) else { violated("the connection closed and the exchange never ended") }
        if case .response(_, let body, _) = outcome, body.count > limit { violated("a body of \(body.count) bytes passed a limit of \(limit)") }
    }

    /// `WWW-Authenticate` values (one per line) through the challenge parser, and every answerable Digest challenge
    /// answered. The answer must carry no line break and must read back with the challenge's nonce, realm and opaque.
    static let authChallenge = FuzzTarget(name: "auth-challenge", summary: "WWW-Authenticate values → HTTPAuthChallenge.parse, Digest") { bytes in
        let values = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\0" }).map(String.init)
        for challenge in HTTPAuthChallenge.parse(values) {
            if challenge.scheme.isEmpty || challenge.scheme != challenge.scheme.lowercased() { violated("scheme '\(challenge.scheme)' is not lowercased") }
            if challenge.parameters.keys.contains(where: { $0 != $0.lowercased() }) { violated("a parameter name is not lowercased") }
            guard challenge.scheme == "digest", HTTPAuthorization.digestProblem(challenge) == nil else { continue }
            let answer: String
            do { answer = try HTTPAuthorization.digest(challenge: challenge, user: "user", password: "pass", method: "GET", uri: "/a", cnonce: "0a1b") } catch {
                violated("a Digest challenge with no problem cannot be answered: \(error)")
            }
            if answer.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) { violated("the Authorization value breaks the header line") }
            guard let echoed = HTTPAuthChallenge.parse([answer]).first else { violated("the Authorization value does not parse: \(answer)") }
            for name in ["nonce", "realm", "opaque"] where (challenge.parameters[name] ?? (name == "realm" ? "" : nil)) != echoed.parameters[name] {
                violated("\(name) does not survive quoting: \(String(describing: challenge.parameters[name])) became \(String(describing: echoed.parameters[name]))")
            }
        }
    }
}
