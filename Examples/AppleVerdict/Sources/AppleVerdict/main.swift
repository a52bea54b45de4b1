import Foundation
import TransportTrust

// Usage: AppleVerdict [CHAIN.pem HOST TIME]; by default the news.ycombinator.com chain beside Package.swift, at a time
// inside its 90 days. Exits 0 when every step gives the outcome it shows, 1 otherwise.
let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
let arguments = Array(CommandLine.arguments.dropFirst())
let chainPath = arguments.first ?? "\(folder)/news.ycombinator.com.pem"
let hostName = arguments.count > 1 ? arguments[1] : "news.ycombinator.com"
let time = arguments.count > 2 ? arguments[2] : "2026-01-18T08:06:31Z"

func expect(_ condition: Bool, _ what: String) {
    print(condition ? "ok: \(what)" : "UNEXPECTED: \(what)")
    if !condition { exit(1) }
}

// snippet.start iphone
let chain = try CertificateLoader.certificates(atPath: chainPath)
let host = try PeerName(hostName)

// Apple's root store with the constraints Apple puts on some of its roots, and Apple's TLS server rules for iOS 26:
// RSA keys of 2048 bits, the 398-day lifetime limit, and Certificate Transparency, enforced with a current list.
var policy = TrustPolicy.ssl(host: host)
policy.platform = ApplePlatform(.iOS, 26)
let trust = ServerTrust(chain: chain, anchors: .apple, policy: policy,
                        validationTime: try Date(time, strategy: .iso8601))
let verdict = await trust.evaluate()

if let ct = verdict.certificateTransparency {
    print("CT: \(ct.status.rawValue), \(ct.countedSCTs) of \(ct.requiredSCTs ?? 0) SCTs, under \(ct.logList)")
    for sct in ct.scts {
        let mark = sct.counted ? "counted" : "not counted: \(sct.reason ?? "")"
        print("  \(sct.log ?? sct.logID) (\(sct.operator ?? "unknown operator")): \(mark)")
    }
}
for failure in verdict.failures {
    print(failure.code, failure.message)
}
// snippet.end
expect(verdict.isTrusted, "an iPhone on iOS 26 trusts the chain")
expect(verdict.certificateTransparency?.status == .compliant, "its embedded SCTs meet Apple's CT policy")
expect(verdict.certificateTransparency?.scts.allSatisfy { $0.verified == true && $0.counted } == true,
       "every SCT's signature verifies, and each counts")

// snippet.start user-anchor
// The same chain with its intermediate as an anchor of your own: Apple requires CT and the 398-day limit only for
// public roots, so neither applies here, as on a device whose profile installs that CA.
var ownAnchor = trust
ownAnchor.anchors = TrustAnchors(custom: Array(chain.dropFirst()))
let underOwnAnchor = await ownAnchor.evaluate()
// underOwnAnchor.isTrusted; underOwnAnchor.certificateTransparency?.status == .notRequired
// snippet.end
expect(underOwnAnchor.isTrusted, "the chain is trusted under its intermediate as a custom anchor")
expect(underOwnAnchor.certificateTransparency?.status == .notRequired,
       "CT is not required under a custom anchor")

// snippet.start old-device
// iOS 12.0 predates Apple's CT enforcement (iOS 12.1.1); the SCTs are still read and reported.
var older = trust
older.policy.platform = ApplePlatform(.iOS, 12)
let onOlderDevice = await older.evaluate()
// onOlderDevice.certificateTransparency?.status == .notRequired
// snippet.end
expect(onOlderDevice.isTrusted, "iOS 12.0 trusts the chain")
expect(onOlderDevice.certificateTransparency?.status == .notRequired,
       "iOS 12.0 does not require CT")

// snippet.start refusal
// Half an hour after the leaf's notBefore, its SCTs' timestamps are still in the future: Apple counts none of them.
var early = trust
early.validationTime = try Date("2026-01-11T08:30:00Z", strategy: .iso8601)
let tooEarly = await early.evaluate()
for failure in tooEarly.failures {
    print(failure.code, failure.message)
}
// tooEarly.failures.first?.code == .certificateTransparency; each SCT's reason says it is later than the check.
// snippet.end
expect(!tooEarly.isTrusted && tooEarly.failures.map(\.code) == [.certificateTransparency],
       "before its SCTs' timestamps the chain is refused for CT alone")
expect(tooEarly.certificateTransparency?.scts.allSatisfy { !$0.counted } == true, "no SCT counts")

// A folder of this run's own, so that the example never touches the user's cache.
let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent("AppleVerdict-\(UUID().uuidString)").path
defer { try? FileManager.default.removeItem(atPath: cacheFolder) }
let listFile = "\(folder)/../../Sources/TransportTrust/Resources/CTLogList/apple_log_list.json"

// snippet.start keep-current
// Keep Apple's list as a device keeps it: refresh it (daily, on a server), and evaluate with the newer of the kept
// list and the bundled one. The store does no I/O of its own on the network: the fetch is yours. Here it reads a file;
// TransportClient's CTLogListRefresher fetches valid.apple.com through HTTPSClient on a schedule.
let store = CTLogListStore(folder: cacheFolder)
let kept = try await store.refresh(from: listFile) { path in
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}
var current = trust
current.validationTime = Date()
current.policy.certificateTransparency.logList = store.listInForce().list
let now = await current.evaluate()
// now.certificateTransparency?.ctLogList?.source == .cached: the list was confirmed current just now, so CT is
// enforced with it for 60 days.
// snippet.end
expect(kept.version == (try CTLogList.bundled()).version, "the kept list is the one fetched")
expect(now.certificateTransparency.map { $0.ctLogList?.source == .cached || $0.status == .notRequired } ?? true,
       "a verdict names the kept list it used")
expect(current.policy.certificateTransparency.status(at: Date()).enforced, "CT is enforced with the kept list")
