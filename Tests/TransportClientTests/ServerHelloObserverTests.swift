import TestSupport
import NIOCore
import NIOEmbedded
import Testing

@testable import TransportClient

@Suite struct ServerHelloObserverTests {
    /// A ServerHello record: version, suite, and optional supported_versions extension.
    static func serverHello(legacy: UInt16 = 0x0303, suite: UInt16, supportedVersion: UInt16? = nil) -> [UInt8] {
        var body: [UInt8] = [UInt8(legacy >> 8), UInt8(legacy & 0xff)] + [UInt8](repeating: 7, count: 32) + [32] + [UInt8](repeating: 1, count: 32)
        body += [UInt8(suite >> 8), UInt8(suite & 0xff), 0]
        var extensions: [UInt8] = [0xff, 0x01, 0x00, 0x01, 0x00]  // renegotiation_info
        if let v = supportedVersion { extensions += [0x00, 0x2b, 0x00, 0x02, UInt8(v >> 8), UInt8(v & 0xff)] }
        body += [UInt8(extensions.count >> 8), UInt8(extensions.count & 0xff)] + extensions
        let handshake: [UInt8] = [2, 0, UInt8(body.count >> 8), UInt8(body.count & 0xff)] + body
        return [22, 3, 3, UInt8(handshake.count >> 8), UInt8(handshake.count & 0xff)] + handshake
    }

    private func observe(_ chunks: [[UInt8]]) throws -> (FirstRecord?, [UInt8]) {
        let observation = HandshakeObservation()
        let channel = EmbeddedChannel(handler: ServerHelloObserver(observation: observation))
        var passed: [UInt8] = []
        for chunk in chunks {
            try channel.writeInbound(channel.allocator.buffer(bytes: chunk))
            while let out = try channel.readInbound(as: ByteBuffer.self) { passed += out.readableBytesView }
        }
        _ = try channel.finish()
        return (observation.first, passed)
    }

    @Test func readsTLS12SuiteAndPassesEveryByteOn() throws {
        let bytes = Self.serverHello(suite: 0xC02F) + [22, 3, 3, 0, 4, 11, 0, 0, 0]
        // Split mid-header and mid-body: the observer must reassemble.
        let (first, passed) = try observe([Array(bytes[0..<3]), Array(bytes[3..<50]), Array(bytes[50...])])
        #expect(first == .serverHello(ServerHelloInfo(version: .tls12, wireVersion: 0x0303, cipherSuiteCode: 0xC02F)))
        #expect(passed == bytes)
    }

    /// Every later read of the connection would pass through it for nothing.
    @Test func leavesThePipelineOnceItHasSeenTheServerHello() throws {
        let observation = HandshakeObservation()
        let channel = EmbeddedChannel(handler: ServerHelloObserver(observation: observation))
        let hello = Self.serverHello(suite: 0xC02F)
        try channel.writeInbound(channel.allocator.buffer(bytes: hello.prefix(20)))
        #expect(throws: Never.self) { try channel.pipeline.syncOperations.handler(type: ServerHelloObserver.self) }
        try channel.writeInbound(channel.allocator.buffer(bytes: hello.dropFirst(20)))
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: ServerHelloObserver.self) }
        let later: [UInt8] = [23, 3, 3, 0, 2, 9, 9]
        try channel.writeInbound(channel.allocator.buffer(bytes: later))
        var passed: [UInt8] = []
        while let out = try channel.readInbound(as: ByteBuffer.self) { passed += out.readableBytesView }
        #expect(passed == hello + later)
        #expect(observation.first == .serverHello(ServerHelloInfo(version: .tls12, wireVersion: 0x0303, cipherSuiteCode: 0xC02F)))
        _ = try channel.finish()
    }

    @Test func tls13VersionComesFromSupportedVersions() throws {
        let (first, _) = try observe([Self.serverHello(suite: 0x1301, supportedVersion: 0x0304)])
        guard case .serverHello(let hello)? = first else { Issue.record("no hello"); return }
        #expect(hello.version == .tls13)
        #expect(hello.cipherSuiteName == "TLS_AES_128_GCM_SHA256")
    }

    @Test func alertsAndNonTLSBytesAreRecognised() throws {
        #expect(try observe([[21, 3, 3, 0, 2, 2, 70]]).0 == .alert(level: 2, description: 70))
        guard case .notTLS(let text)? = try observe([Array("HTTP/1.1 400 Bad Request\r\n".utf8)]).0 else {
            Issue.record("not recognised as non-TLS")
            return
        }
        #expect(text.hasPrefix("HTTP/1.1 400"))
    }

    @Test func truncatedOrHostileHellosAreUnparsableNotCrashes() throws {
        // A ServerHello that claims more session-id bytes than it has.
        var bad = Self.serverHello(suite: 0xC02F)
        bad[5 + 4 + 2 + 32] = 200
        guard case .unparsable? = try observe([bad]).0 else { Issue.record("accepted a malformed hello"); return }
        // A record longer than TLS allows.
        guard case .unparsable? = try observe([[22, 3, 3, 0xff, 0xff]]).0 else { Issue.record("accepted an oversized record"); return }
        // Unknown suites get a hex name.
        #expect(ServerHelloInfo(version: .tls12, wireVersion: 0x0303, cipherSuiteCode: 0xABCD).cipherSuiteName == "0xABCD")
    }
}
