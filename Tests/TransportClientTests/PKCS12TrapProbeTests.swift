import Foundation
import NIOSSL
import Testing

/// Tells us when `PKCS12Screen` can go. swift-nio-ssl's `NIOSSLPKCS12Bundle` traps on a bundle that holds
/// certificates but no key, so every bundle is first read with swift-nio-ssl's own BoringSSL: the one module
/// imported without being declared (scripts/check-imports.py, DEVELOPERS.md's gap table). The bundle goes to
/// swift-nio-ssl directly in a child process. When this test fails, the dependency has stopped trapping: drop the
/// screen and its import, and this test with them.
@Suite struct PKCS12TrapProbeTests {
    @Test func swiftNIOSSLStillTrapsOnABundleWithoutAKey() async throws {
        let result = await #expect(processExitsWith: .failure) {
            // The regression the identity-pkcs12 fuzz target found; its password is the fuzz target's.
            let bundle = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fuzz/Regressions/identity-pkcs12/certificates-only.p12")
            guard let bytes = try? Data(contentsOf: bundle) else { exit(0) }  // not a trap: the test fails
            _ = try? NIOSSLPKCS12Bundle(buffer: Array(bytes), passphrase: Array("fuzz".utf8))
            exit(0)  // read or refused without a trap: swift-nio-ssl no longer needs the screen
        }
        // A trap, not an exit code: fatalError is SIGILL on x86_64 and SIGTRAP on arm64.
        switch result?.exitStatus {
        case .signal(let signal): #expect(signal == SIGILL || signal == SIGTRAP, "ended by signal \(signal)")
        case let other: Issue.record("expected a trap, got \(String(describing: other))")
        }
    }
}
