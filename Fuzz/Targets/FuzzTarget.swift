import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// One fuzz target: a name for `scripts/fuzz.sh` and the corpus folders, and the function libFuzzer calls with each input.
///
/// A target calls the library directly, with fixed anchors and a fixed time, and turns silent wrongness into a crash
/// through ``violated(_:)``: a crash, a hang or a broken invariant are all findings.
package struct FuzzTarget: Sendable {
    package let name: String
    package let summary: String
    package let run: @Sendable ([UInt8]) -> Void

    /// Every target, in the order `scripts/fuzz.sh --all` runs them.
    package static let all: [FuzzTarget] = [
        chain, certificate, atsConfig, binaryPlist,
        pinsATS, pinsTrustKit, pinsTrustKitJSON, pinsOkHttp, pinsAndroid,
        ocsp, identityPKCS12, identityPEMKey, identityPEMChain,
        serverHello, httpResponse, authChallenge, sctList, ctLogList, crl, ipa, url,
    ]

    package static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// A broken invariant: the input made the library silently wrong. Crashes, so that libFuzzer keeps the input.
package func violated(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    FileHandle.standardError.write(Data("fuzz invariant broken (\(file):\(line)): \(message)\n".utf8))
    abort()
}

/// Runs async library code to completion from libFuzzer's synchronous callback. The calling thread is libFuzzer's own,
/// never one of the cooperative pool's, so blocking it cannot starve the task it waits for.
package func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = NIOLockedValueBox<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let value = await body()
        result.withLockedValue { $0 = value }
        done.signal()
    }
    done.wait()
    guard let value = result.withLockedValue({ $0 }) else { violated("the task ended without a result") }
    return value
}

/// Every time-dependent check runs at this instant: the fixtures' certificates and OCSP responses are valid then, and
/// the same input always gets the same verdict.
package let fuzzTime = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00:00Z
