import AppTransportSecurity  // PinConfigurationFormat.read: ATS files go through the ATS parser
import Foundation
import TransportTrust

// Each block is one library's pinning set-up written with TransportTrust, run against Examples/chain.pem for
// www.example.test, whose root (Examples/root.pem) is the only anchor. Exits 0 when every verdict is as shown.
let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
let pins = "\(examples)/PinMigration/Pins"
let chain = try CertificateLoader.certificates(atPath: "\(examples)/chain.pem")
let root = try CertificateLoader.certificates(atPath: "\(examples)/root.pem")
// At a fixed time inside the example leaf's life, so that the example outlives it.
let host = try PeerName("www.example.test")
let trust = ServerTrust(chain: chain, anchors: TrustAnchors(custom: root), policy: .ssl(host: host),
                        validationTime: try Date("2027-06-01T00:00:00Z", strategy: .iso8601))

var unexpected = 0
@MainActor func expect(_ verdict: TrustVerdict, trusted: Bool, _ what: String) {
    let ok = verdict.isTrusted == trusted
    print(ok ? "ok: \(what)" : "UNEXPECTED: \(what): \(verdict.failures)")
    if !ok { unexpected += 1 }
}

// snippet.start afnetworking
// AFSecurityPolicy *policy = [AFSecurityPolicy policyWithPinningMode:AFSSLPinningModePublicKey
//                                              withPinnedCertificates:certificates];
let afPolicy = AFSecurityPolicy(pinningMode: .publicKey, pinnedCertificates: root)
let afVerdict = await afPolicy.evaluate(trust, forDomain: "www.example.test")
// afPolicy.evaluateServerTrust(trust, forDomain:) gives the same answer as a Bool.
// snippet.end
expect(afVerdict, trusted: true, "AFSecurityPolicy public-key mode")

// snippet.start alamofire
let alamofire = try ServerTrustManager(evaluators: [
    "www.example.test": PublicKeysTrustEvaluator(certificates: root),
    "**.example.test": CompositeTrustEvaluator([
        DefaultTrustEvaluator(),
        PinnedCertificatesTrustEvaluator(certificates: root),
    ]),
])
let alamofireVerdict = await alamofire.evaluate(trust, forHost: host)
// A host no key matches is refused with hostNotAllowed, as allHostsMustBeEvaluated defaults to true.
// snippet.end
expect(alamofireVerdict, trusted: true, "Alamofire-style evaluators")
expect(await alamofire.evaluate(trust, forHost: try PeerName("api.example.com")), trusted: false, "Alamofire-style: an unlisted host")

// snippet.start trustkit
let (trustKitPins, _) = try PinConfigurationFormat.read(path: "\(pins)/trustkit.json")
// Validated as TrustKit validates at start-up (two pins when enforcing, hashes of 32 bytes, …); throws otherwise.
let trustKit = try ServerTrustManager(configuration: trustKitPins)
let trustKitVerdict = await trustKit.evaluate(trust, forHost: host)
// snippet.end
expect(trustKitVerdict, trusted: true, "TrustKit JSON")

// snippet.start okhttp
let (okHttpPins, _) = try PinConfigurationFormat.read(path: "\(pins)/okhttp-pins.txt")
let okHttp = try ServerTrustManager(configuration: okHttpPins)
let okHttpVerdict = await okHttp.evaluate(trust, forHost: host)
// `*.example.test` is one label, as in OkHttp: `example.test` itself is not pinned by it.
// snippet.end
expect(okHttpVerdict, trusted: true, "OkHttp CertificatePinner lines")

// snippet.start android
let (androidPins, warnings) = try PinConfigurationFormat.read(path: "\(pins)/network_security_config.xml")
for warning in warnings { print(warning) }
let android = try ServerTrustManager(configuration: androidPins)
let androidVerdict = await android.evaluate(trust, forHost: host)
// snippet.end
expect(androidVerdict, trusted: true, "Android Network Security Config")

// snippet.start convert
// One pin list for every platform: the TrustKit set written as an Info.plist's NSPinnedDomains.
let (plist, lost) = PinConfigurationFormat.ats.write(trustKitPins)
print(plist)
for warning in lost { print(warning) }
// snippet.end
exit(unexpected == 0 ? 0 : 1)
