import TestSupport
import ATSTestServers
import Foundation

/// Runs `openssl` with arguments in `directory` and returns its output, or throws with it.
@discardableResult
func openssl(_ arguments: [String], in directory: String) throws -> String {
    try OpenSSLCommand.run(arguments, in: URL(fileURLWithPath: directory))
}

var opensslAvailable: Bool { OpenSSLCommand.isAvailable }

// `openssl s_server` servers come from ATSTestServers' OpenSSLServer, shared with the diagnostics tests.
