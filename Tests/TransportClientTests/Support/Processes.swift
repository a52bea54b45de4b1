import TestSupport
import TestServersSupport
import ATSTestServers
import Foundation

/// Runs `openssl` with arguments in `directory` and returns its output, or throws with it.
@discardableResult
func openssl(_ arguments: [String], in directory: String) throws -> String {
    try OpenSSLCommand.run(arguments, in: URL(fileURLWithPath: directory))
}

var opensslAvailable: Bool { OpenSSLCommand.isAvailable }

// `openssl s_server` servers come from ATSTestServers' OpenSSLServer, shared with the diagnostics tests.

/// `openssl s_server -www` presenting `pki`'s leaf and intermediate, with `extra` arguments; keep the directory
/// alive as long as the server.
func opensslServer(_ pki: ServerPKI, _ extra: [String]) throws -> (OpenSSLServer, TemporaryDirectory) {
    let dir = try TemporaryDirectory()
    try dir.write("leaf.pem", pki.leaf.pem)
    try dir.write("intermediate.pem", pki.intermediate.pem)
    try dir.write("key.pem", pki.leaf.key.pemString)
    return (try OpenSSLServer(arguments: ["-cert", "leaf.pem", "-cert_chain", "intermediate.pem", "-key", "key.pem", "-www"] + extra, in: dir.path), dir)
}
