import Crypto
import Foundation
import SwiftASN1
import X509

/// Certificate Transparency under the SSL policy: Apple's rules for embedded SCTs, run on a path that passed the
/// other rules, since it costs a signature check per SCT.
public struct CertificateTransparencyOptions: Sendable, Hashable {
    /// Whether Certificate Transparency refuses, only reports, or is not checked.
    public enum Mode: String, Sendable, Hashable, CaseIterable, Codable {
        /// Refuse a chain that Apple's policy refuses, where Apple enforces it.
        case enforce
        /// Evaluate and report, but never refuse for CT.
        case report
        /// Do not look at SCTs.
        case off
    }

    /// Whether CT is checked, reported, or enforced.
    public var mode: Mode
    /// The logs to trust; nil for the list bundled with the package.
    public var logList: CTLogList?
    /// NSRequiresCertificateTransparency = YES. On releases before iOS 12.1.1 / macOS 10.14.2, whose system requires no
    /// CT, chains to a public root then need SCTs whatever their leaf's issue date; on later releases it changes nothing.
    public var requiredByConfiguration: Bool

    /// CT settings; by default Apple's policy is enforced with the log list bundled with the package.
    public init(mode: Mode = .enforce, logList: CTLogList? = nil, requiredByConfiguration: Bool = false) {
        self.mode = mode
        self.logList = logList
        self.requiredByConfiguration = requiredByConfiguration
    }
}

/// What the CT step found on one path.
struct TransparencyFindings: Sendable {
    var failure: TrustFailure?
    var note: String?
    var report: CertificateTransparencyReport?
    /// Kept with a validated path, so that a repeat evaluation checks no SCT signature again.
    var analysis: SCTAnalysis?
    /// The verification times at which these findings stay the same: they change only when an SCT's timestamp is
    /// passed or the list grows too old. A cached path reuses them inside this range and works them out again outside.
    var stable: ClosedRange<Date> = Date.distantPast...Date.distantFuture
}

struct CertificateTransparencyCheck: Sendable, Hashable {
    let options: CertificateTransparencyOptions
    let platformRequiresCT: Bool

    func check(_ chain: UnverifiedCertificateChain, context: RuleContext, cached: SCTAnalysis? = nil) -> TransparencyFindings {
        guard options.mode != .off, chain.count >= 2 else { return TransparencyFindings() }
        let leaf = chain[0]
        let applies = AppleCTPolicy.applicability(leaf: leaf, AppleCTPolicy.Inputs(
            time: context.validationTime, anchorIsPublic: context.anchorIsSystem,
            anchorIsApple: context.anchorIsSystem && Self.isAppleRoot(chain[chain.count - 1]),
            platformRequiresCT: platformRequiresCT, requiredByConfiguration: options.requiredByConfiguration))
        guard applies.isRequired else {
            // The report names the list and reads nothing else of it, so the list (eight references) is not copied.
            guard let (summary, reference) = options.logList.map({ ($0.summary, $0.reference) }) ?? CTLogList.bundledSummary else {
                return TransparencyFindings()
            }
            return TransparencyFindings(report: CertificateTransparencyReport(
                status: .notRequired, requiredSCTs: nil, countedSCTs: 0, scts: [], explanation: applies.reason, logList: summary,
                ctLogList: reference))
        }
        let list: CTLogList
        do { list = try options.logList ?? CTLogList.bundled() } catch {
            return refusal(TrustFailure(.certificateTransparency, certificate: 0, "Certificate Transparency cannot be checked: \(error)"))
        }
        let outOfDateFrom = list.outOfDateFrom ?? .distantFuture
        guard list.isCurrent(at: context.validationTime) else {
            let age = list.age(at: context.validationTime) ?? 0
            let text = "Certificate Transparency was not enforced: \(list.summary) is \(age) days old at the verification time, "
                + "and an iPhone stops enforcing CT once its list is \(CTLogList.maximumAgeDays) days old. "
                + "Refresh the list from Apple (CTLogListStore keeps one current) or give a current one"
            return TransparencyFindings(note: text, report: CertificateTransparencyReport(
                status: .listOutOfDate, requiredSCTs: nil, countedSCTs: 0, scts: Self.unchecked(leaf, list: list),
                explanation: text, logList: list.summary, ctLogList: list.reference),
                stable: outOfDateFrom...Date.distantFuture)
        }
        let analysis = cached.flatMap { $0.logList == list.identity ? $0 : nil } ?? SCTAnalysis(leaf: leaf, issuer: chain[1], list: list)
        var report = AppleCTPolicy.evaluate(analysis, leaf: leaf, list: list, time: context.validationTime)
        report.ctLogList = list.reference
        var findings = TransparencyFindings(report: report, analysis: analysis)
        // Before the latest SCT's timestamp some SCT is from the future, and the outcome holds only at this time. The
        // check compares whole seconds (as trustd does), so an SCT counts from the first whole second at or after it.
        let latest = analysis.latestTimestamp.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.up)) } ?? .distantPast
        let time = context.validationTime
        findings.stable = time < latest ? time...time : latest...max(latest, outOfDateFrom.addingTimeInterval(-0.001))
        if report.refuses {
            if options.mode == .enforce {
                findings.failure = TrustFailure(.certificateTransparency, certificate: 0, report.explanation)
            } else {
                findings.note = "Certificate Transparency (report only): \(report.explanation)"
            }
        }
        return findings
    }

    /// The leaf's SCTs named but not checked, so that a report of CT not enforced still shows what the leaf carries.
    /// No signature is checked: nothing is counted.
    static func unchecked(_ leaf: Certificate, list: CTLogList) -> [SCTReport] {
        guard case .present(let scts) = EmbeddedSCTs.read(from: leaf) else { return [] }
        return scts.map { sct in
            let log = list.log(id: sct.logID)
            return SCTReport(logID: sct.logIDBase64, log: log?.name, operator: log?.operatorName,
                             timestamp: sct.isVersion1 ? sct.date : nil, verified: nil, counted: false,
                             reason: "not checked: Certificate Transparency was not enforced")
        }
    }

    private func refusal(_ failure: TrustFailure) -> TransparencyFindings {
        options.mode == .enforce ? TransparencyFindings(failure: failure) : TransparencyFindings(note: failure.message)
    }

    /// trustd requires CT only for chains to a system root "that is not one of Apple's own anchors".
    static func isAppleRoot(_ anchor: Certificate) -> Bool {
        // Every one of them names Apple as its organization (Apple Root Certificate Authority as "Apple Computer, Inc.",
        // which prints escaped); the hash, which decides, is taken only then.
        let apple = anchor.subject.contains { rdn in
            rdn.contains { $0.type == .RDNAttributeType.organizationName && String(describing: $0.value).hasPrefix("Apple ") }
        }
        guard apple else { return false }
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(anchor)) != nil else { return false }
        let hex = SHA256.hash(data: serializer.serializedBytes).map { b in
            String(b >> 4, radix: 16) + String(b & 0xf, radix: 16)
        }.joined()
        return appleRootFingerprints.contains(hex)
    }

    /// SHA-256 of the 15 Apple-operated roots in Apple's trust store 2025072000 (security_certificates-55349.0.11).
    static let appleRootFingerprints: Set<String> = [
        "5fbd45b0303b6247e410328864b795bf91f44856be6cbd8d1949ff60a6f51908", // Apple Platform Bootstrap ECC Root CA - G1
        "559e1c5406885233cab74780e22766a4f476d717892e6277903397a8172cd42d", // Apple Platform Code Signing ECC Root CA - G1
        "0cb9124cadff41d02701f59b477d71e2690b38add9f524c49bbed0140ad9b9ec", // Apple Platform Code Signing RSA Root CA - G1
        "99dad8412ff1155b12759717aef5a31e6e089e357539faca3d57e138018493b3", // Apple Platform Developer ECC Root CA - G1
        "8174fdd9db62e04dd18f17d1224406c7a2cc8d5db5816f3dc7f5e900047e7fb7", // Apple Platform Developer RSA Root CA - G1
        "2aa219a1df9e699c513e3304224c0695ab0bc244bf3334f7b1ee8db12e16ae9b", // Apple Platform ECC Root CA - G1
        "ffe0e2fab9a71c9dc927b3211efbb315bb0048b1e8a6621947b2b10363051c2f", // Apple Platform Multipurpose ECC Root CA - G1
        "fa760b953dfd935ca420ba9baa5f07067fad4449b5554b9418cbdd12e0a56eda", // Apple Platform Multipurpose RSA Root CA - G1
        "5a5044783b2cc790a92d68a59e1eee167108b204f060a8378d539016f4670bc9", // Apple Platform RSA Root CA - G1
        "f5fcc6d6d0e17d462cb2c9f0d08826bd87f10175523766da26c2ceb6460cf7a2", // Apple Platform TLS ECC Root CA - G1
        "49baca97e0d741a4b1b695ee9bdc859f431de9714884f674e97f43707a61f92d", // Apple Platform TLS RSA Root CA - G1
        "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024", // Apple Root CA
        "c2b9b042dd57830e7d117dac55ac8ae19407d38e41d88f3215bc3a890444a050", // Apple Root CA - G2
        "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179", // Apple Root CA - G3
        "0d83b611b648a1a75eb8558400795375cad92e264ed8e9d7a757c1f5ee2bb22d", // Apple Root Certificate Authority
    ]
}
