import TestSupport
import TestServersSupport
import Foundation
import Testing

@testable import TransportClient

@Suite struct FileCredentialStoreTests {
    let space = ProtectionSpace(host: "api.example.test", port: 443, protocol: "https", realm: "r", authenticationMethod: .httpBasic)

    @Test func storesWithOwnerOnlyPermissionsAndReadsBack() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("credentials.json")
        let store = FileCredentialStore(path: path)
        try await store.set(user: "alice", password: "s3cret", for: space)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o777 == 0o600)
        let again = FileCredentialStore(path: path)
        #expect(await again.credential(for: space)?.password == "s3cret")
        var other = space
        other.realm = "other"
        #expect(await again.credential(for: other) == nil)
        try await again.remove(for: space)
        #expect(await again.credential(for: space) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["credentials.json"])
    }

    @Test func refusesAFileOthersCanRead() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("credentials.json", "[]")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let store = FileCredentialStore(path: path)
        await #expect(throws: CredentialStoreError.self) { try await store.set(user: "a", password: "b", for: space) }
        #expect(await store.credential(for: space) == nil)
    }

    /// A store that is not this library's says where it goes wrong, not with Foundation's decoding dump.
    @Test func aFileThatIsNoStoreSaysWhereItIsWrong() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("credentials.json", #"[{"host": 443}]"#)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        do {
            try await FileCredentialStore(path: path).set(user: "a", password: "b", for: space)
            Issue.record("a file that is no store was written over")
        } catch {
            let text = "\(error)"
            #expect(text.contains("is not a credential store written by this library: [0]"), "\(text)")
            #expect(!text.contains("DecodingError") && !text.contains("CodingKeys"), "\(text)")
        }
    }

    @Test func permanentCredentialsReachTheStoreAfterSuccess() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            request.head.headers.first(name: "authorization") == "Basic " + Data("bob:pw".utf8).base64EncodedString() ? .text("ok")
                : TestResponse(status: .unauthorized, headers: [("www-authenticate", "Basic realm=\"store\"")], body: [])
        }
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let store = FileCredentialStore(path: dir.file("store.json"))
            let first = makeClient(anchors: pki.anchors) { config in
                config.credentialStore = store
                config.challengeHandler = { c in
                    c.protectionSpace.authenticationMethod == .httpBasic ? .useCredential(.password(user: "bob", password: "pw", persistence: .permanent)) : .performDefaultHandling
                }
            }
            #expect(try await first.execute(HTTPRequest(url: "https://www.example.test:\(server.port)/")).text == "ok")
            let space = ProtectionSpace(host: "www.example.test", port: server.port, protocol: "https", realm: "store", authenticationMethod: .httpBasic)
            #expect(await store.credential(for: space)?.user == "bob")
            // A new client with no delegate uses the stored credential by default.
            let second = makeClient(anchors: pki.anchors) { $0.credentialStore = FileCredentialStore(path: dir.file("store.json")) }
            #expect(try await second.execute(HTTPRequest(url: "https://www.example.test:\(server.port)/")).text == "ok")
        }
    }
}
