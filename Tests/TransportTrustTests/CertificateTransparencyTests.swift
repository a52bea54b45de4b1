import Crypto
import Foundation
import TestSupport
import Testing
import X509

@testable import TransportTrust

@Suite struct CertificateTransparencyTests {
    static let logs = (0..<5).map { TestCTLog(name: "Test Log \($0)") }

    // MARK: How many SCTs

    @Test(arguments: 0...4)
    func aNinetyDayCertificateNeedsTwoSCTsFromDistinctLogs(count: Int) async throws {
        let pki = try CTTestPKI()
        // No SCT at all is no extension: an empty list is malformed (see the hostile lists below).
        let leaf = count == 0 ? pki.ca.leaf(notValidAfter: PKI.notBefore.addingTimeInterval(90 * 86400 - 1))
            : pki.ca.leafWithSCTs(Array(Self.logs.prefix(count)))
        let verdict = try await pki.evaluate(leaf, logs: Self.logs)
        let report = try #require(verdict.certificateTransparency)
        #expect(report.requiredSCTs == 2)
        #expect(report.countedSCTs == count)
        #expect(verdict.isTrusted == (count >= 2))
        switch count {
        case 0:
            #expect(report.status == .noEmbeddedSCTs)
            #expect(verdict.failure(.certificateTransparency)?.message.contains("embeds no SCTs") == true)
            #expect(verdict.failure(.certificateTransparency)?.message.contains("swift-nio-ssl") == true)
        case 1:
            #expect(report.status == .nonCompliant)
            let message = try #require(verdict.failure(.certificateTransparency)?.message)
            #expect(message.contains("has 1 valid SCT from distinct logs; Apple requires 2 for a certificate of 90 days"))
            #expect(message.contains("Test Log 0 (Operator of Test Log 0)"))
            #expect(message.contains("Ask the CA to reissue"))
        default:
            #expect(report.status == .compliant)
            #expect(report.scts.allSatisfy { $0.verified == true && $0.counted })
        }
    }

    @Test(arguments: [(90, 2), (180, 2), (181, 3), (398, 3)])
    func theRequiredCountFollowsTheLifetime(days: Int, required: Int) async throws {
        let pki = try CTTestPKI()
        let notBefore = PKI.now.addingTimeInterval(-86400)
        // Inclusive lifetimes: notAfter − notBefore is one second short of the days.
        let leaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)), notValidBefore: notBefore,
                                       notValidAfter: notBefore.addingTimeInterval(Double(days) * 86400 - 1))
        let verdict = try await pki.evaluate(leaf, logs: Self.logs)
        #expect(verdict.certificateTransparency?.requiredSCTs == required)
        #expect(verdict.isTrusted == (required == 2))
    }

    @Test func trustdCountsLifetimeWithoutTheExtraSecond() {
        let nb = Date(timeIntervalSince1970: 1_700_000_000)
        // Exactly 180 days: trustd needs 2 (seconds ≤ 180 × 86,400); Apple's page would call it 181 days and ask for 3.
        #expect(AppleCTPolicy.requiredCount(notBefore: nb, notAfter: nb.addingTimeInterval(180 * 86400)).count == 2)
        #expect(AppleCTPolicy.requiredCount(notBefore: nb, notAfter: nb.addingTimeInterval(180 * 86400 + 1)).count == 3)
        #expect(AppleCTPolicy.requiredCount(notBefore: nb, notAfter: nb.addingTimeInterval(825 * 86400)).count == 3)
        #expect(AppleCTPolicy.requiredCount(notBefore: nb, notAfter: nb.addingTimeInterval(825 * 86400 + 1)).count == 4)
        for (days, count) in [(90, 2), (180, 2), (181, 3), (398, 3), (399, 3), (825, 3), (826, 4)] {
            #expect(AppleCTPolicy.requiredCount(notBefore: nb, notAfter: nb.addingTimeInterval(Double(days) * 86400 - 1)).count == count)
        }
    }

    @Test func certificatesIssuedBefore2021AreCountedInCalendarMonths() {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let nb = utc.date(from: DateComponents(year: 2019, month: 3, day: 10))!
        func required(months: Int, plusSeconds: Double = 0) -> Int {
            let na = utc.date(byAdding: .month, value: months, to: nb)!.addingTimeInterval(plusSeconds)
            return AppleCTPolicy.requiredCount(notBefore: nb, notAfter: na).count
        }
        #expect(required(months: 14) == 2)
        #expect(required(months: 15, plusSeconds: -1) == 2)
        #expect(required(months: 15) == 3)
        #expect(required(months: 27) == 3)
        #expect(required(months: 28) == 4)
        #expect(required(months: 39) == 4)
        #expect(required(months: 40) == 5)
    }

    // MARK: Which SCTs count

    @Test func sctsFromRejectedPendingAndUnknownLogsDoNotCount() async throws {
        let pki = try CTTestPKI()
        var rejected = TestCTLog(name: "Rejected Log")
        rejected.state = "rejected"
        var pending = TestCTLog(name: "Pending Log")
        pending.state = "pending"
        let unknown = TestCTLog(name: "Unlisted Log")
        let leaf = pki.ca.leafWithSCTs([Self.logs[0], rejected, pending, unknown])
        let verdict = try await pki.evaluate(leaf, logs: [Self.logs[0], rejected, pending])
        let report = try #require(verdict.certificateTransparency)
        #expect(!verdict.isTrusted)
        #expect(report.countedSCTs == 1)
        #expect(report.scts.map(\.counted) == [true, false, false, false])
        #expect(report.scts[1].reason?.contains("Rejected Log is rejected") == true)
        #expect(report.scts[2].reason?.contains("Pending Log is pending") == true)
        #expect(report.scts[3].reason?.contains("not in the CT log list test list") == true)
        #expect(report.scts[3].log == nil)
    }

    @Test func aReadonlyLogCountsOnlySCTsFromBeforeItFroze() async throws {
        let pki = try CTTestPKI()
        var frozen = TestCTLog(name: "Frozen Log")
        frozen.state = "readonly"
        let sctTime = PKI.notBefore.addingTimeInterval(60)
        frozen.stateSince = sctTime.addingTimeInterval(1)
        let before = try await pki.evaluate(pki.ca.leafWithSCTs([Self.logs[0], frozen], sctTime: sctTime), logs: [Self.logs[0], frozen])
        #expect(before.isTrusted)
        frozen.stateSince = sctTime.addingTimeInterval(-1)
        let after = try await pki.evaluate(pki.ca.leafWithSCTs([Self.logs[0], frozen], sctTime: sctTime), logs: [Self.logs[0], frozen])
        #expect(!after.isTrusted)
        #expect(after.certificateTransparency?.scts[1].reason?.contains("Frozen Log froze on") == true)
    }

    @Test func aRetiredLogCountsOnlyWhenTheSCTAndTheIssuancePrecedeRetirement() async throws {
        let pki = try CTTestPKI()
        var retired = TestCTLog(name: "Retired Log")
        retired.state = "retired"
        let sctTime = PKI.notBefore.addingTimeInterval(60)
        retired.stateSince = sctTime.addingTimeInterval(3600)
        let leaf = pki.ca.leafWithSCTs([Self.logs[0], retired], sctTime: sctTime)
        let counted = try await pki.evaluate(leaf, logs: [Self.logs[0], retired])
        #expect(counted.isTrusted)
        #expect(counted.certificateTransparency?.scts[1].reason == "from a retired log, counted as once approved")

        retired.stateSince = sctTime.addingTimeInterval(-3600)
        let late = try await pki.evaluate(leaf, logs: [Self.logs[0], retired])
        #expect(!late.isTrusted)
        #expect(late.certificateTransparency?.scts[1].reason?.contains("retired on") == true)

        // Only retired logs: nothing is currently approved, so there is no issuance time and nothing counts.
        var retired2 = TestCTLog(name: "Retired Log 2")
        (retired2.state, retired2.stateSince) = ("retired", sctTime.addingTimeInterval(3600))
        retired.stateSince = sctTime.addingTimeInterval(3600)
        let onlyRetired = try await pki.evaluate(pki.ca.leafWithSCTs([retired, retired2], sctTime: sctTime), logs: [retired, retired2])
        #expect(!onlyRetired.isTrusted)
        #expect(onlyRetired.certificateTransparency?.countedSCTs == 0)
    }

    @Test func aShardCountsOnlyCertificatesThatExpireInsideItsWindow() async throws {
        let pki = try CTTestPKI()
        let leaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)))
        let notAfter = leaf.certificate.notValidAfter
        var shard = Self.logs[1]
        shard.interval = notAfter.addingTimeInterval(-86400)..<notAfter.addingTimeInterval(86400)
        #expect(try await pki.evaluate(leaf, logs: [Self.logs[0], shard]).isTrusted)
        // One day after the window: end_exclusive is the leaf's notAfter itself.
        shard.interval = notAfter.addingTimeInterval(-86400 * 180)..<notAfter
        let outside = try await pki.evaluate(leaf, logs: [Self.logs[0], shard])
        #expect(!outside.isTrusted)
        #expect(outside.certificateTransparency?.scts[1].reason?.contains("only logs certificates expiring from") == true)
    }

    @Test func anSCTFromTheFutureDoesNotCount() async throws {
        let pki = try CTTestPKI()
        let leaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)), sctTime: PKI.now.addingTimeInterval(3600))
        let verdict = try await pki.evaluate(leaf, logs: Self.logs)
        #expect(!verdict.isTrusted)
        #expect(verdict.certificateTransparency?.scts.allSatisfy { $0.reason?.contains("after the verification time") == true } == true)
    }

    @Test func timesAreComparedInWholeSecondsAsTrustdDoes() async throws {
        let pki = try CTTestPKI()
        let engine = TrustEngine()
        // trustd truncates the verification time to the second: an SCT half a second after PKI.now is still in the
        // future at PKI.now + 0.9 s, and counts from PKI.now + 1 s. The cache keeps to the same line.
        let leaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)), sctTime: PKI.now.addingTimeInterval(0.5))
        #expect(try await pki.evaluate(leaf, logs: Self.logs, at: PKI.now.addingTimeInterval(1), engine: engine).isTrusted)
        let early = try await pki.evaluate(leaf, logs: Self.logs, at: PKI.now.addingTimeInterval(0.9), engine: engine)
        #expect(!early.isTrusted)
        #expect(early.certificateTransparency?.scts.allSatisfy { $0.reason?.contains("after the verification time") == true } == true)
        // Shown to the millisecond, with the whole second compared: not "00:00:00 is after 00:00:00.900".
        let shown = RFC3339.formatMilliseconds(PKI.now.addingTimeInterval(0.5))
        #expect(shown.hasSuffix(".500Z"), "\(shown)")
        #expect(early.certificateTransparency?.scts.first?.reason?.contains("its timestamp \(shown) is after the verification time, taken in whole seconds as trustd does (\(RFC3339.format(PKI.now)))") == true,
                "\(early.certificateTransparency?.scts.first?.reason ?? "")")
        // A readonly log's freeze is compared in seconds too: an SCT within the second it froze counts.
        var frozen = TestCTLog(name: "Frozen Log")
        frozen.state = "readonly"
        let sctTime = PKI.notBefore.addingTimeInterval(60)
        frozen.stateSince = sctTime
        let withinTheSecond = pki.ca.leafWithSCTs([Self.logs[0], frozen], sctTime: sctTime.addingTimeInterval(0.5))
        let verdict = try await pki.evaluate(withinTheSecond, logs: [Self.logs[0], frozen])
        #expect(verdict.isTrusted, "\(verdict.failures)")
    }

    @Test func aCorruptSignatureIsNamed() async throws {
        let pki = try CTTestPKI()
        let leaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)), corrupt: [1])
        let verdict = try await pki.evaluate(leaf, logs: Self.logs)
        let report = try #require(verdict.certificateTransparency)
        #expect(!verdict.isTrusted)
        #expect(report.scts.map(\.verified) == [true, false])
        #expect(verdict.failure(.certificateTransparency)?.message.contains("SCT 2: its signature does not verify") == true)
    }

    @Test func anRSALogIsVerified() async throws {
        let pki = try CTTestPKI()
        let rsaLog = TestCTLog(name: "RSA Log", key: .rsa(try .init(keySize: .bits2048)))
        let verdict = try await pki.evaluate(pki.ca.leafWithSCTs([Self.logs[0], rsaLog]), logs: [Self.logs[0], rsaLog])
        #expect(verdict.isTrusted)
        #expect(verdict.certificateTransparency?.scts.map(\.verified) == [true, true])
    }

    @Test func twoSCTsFromOneLogCountOnce() async throws {
        let pki = try CTTestPKI()
        let leaf = pki.ca.leafWithSCTs([Self.logs[0], Self.logs[0]])
        let verdict = try await pki.evaluate(leaf, logs: Self.logs)
        #expect(!verdict.isTrusted)
        #expect(verdict.certificateTransparency?.countedSCTs == 1)
        #expect(verdict.certificateTransparency?.scts[1].reason == "another SCT from the same log already counts")
    }

    @Test func aTruncatedOrOverlongListIsRefusedWithItsReason() async throws {
        let pki = try CTTestPKI()
        let good = pki.ca.leafWithSCTs([Self.logs[0]])
        let scts = try #require(EmbeddedSCTs.read(from: good.certificate).present)
        #expect(scts.count == 1)
        // 5,000 SCTs of one byte each, in a list as long as an extension's TLS length allows: read up to the bound only.
        let one: [UInt8] = [0x00, 0x01, 0x05]
        let hostile: [UInt8] = [0x27, 0x10] + Array(repeating: one, count: 3333).flatMap { $0 } + [0x00]
        for (raw, reason) in [([0x00, 0x10, 0x00, 0x02, 0x00], "list length says 16"), ([0x00, 0x00], "holds no SCT"),
                              ([0x00, 0x03, 0x00, 0x05, 0x00], "ends early"), (hostile, "more than 32 SCTs")] as [([UInt8], String)] {
            let leaf = pki.ca.leafWithSCTs([], rawList: raw)
            let verdict = try await pki.evaluate(leaf, logs: Self.logs)
            #expect(!verdict.isTrusted)
            #expect(verdict.certificateTransparency?.status == .nonCompliant)
            #expect(verdict.failure(.certificateTransparency)?.message.contains(reason) == true, "\(raw)")
        }
    }

    @Test func anSCTThatCannotBeReadIsSkippedAndTheOthersCount() async throws {
        let pki = try CTTestPKI()
        // trustd skips an SCT it cannot read and counts the rest: two good SCTs beside an empty and a cut-short one.
        let leaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)), extraSCTs: [[], [0x00, 0x01, 0x02]])
        let verdict = try await pki.evaluate(leaf, logs: Self.logs)
        #expect(verdict.isTrusted, "\(verdict.failures)")
        let report = try #require(verdict.certificateTransparency)
        #expect(report.status == .compliant)
        #expect(report.countedSCTs == 2)
        #expect(report.scts.count == 4)
        #expect(report.scts[2].reason == "it cannot be read: it is empty", "\(report.scts[2])")
        #expect(report.scts[3].reason?.contains("it cannot be read: it ends early") == true, "\(report.scts[3])")
        #expect(!report.scts[2].counted && !report.scts[3].counted)
    }

    @Test func everyAppleOperatedRootIsKnownAsOne() throws {
        // trustd exempts chains to Apple's own roots from CT; one of them is still Apple Computer, Inc.'s.
        let apple = AppleTrustStore.shared.roots.certificates.compactMap(\.certificate).filter(CertificateTransparencyCheck.isAppleRoot)
        #expect(apple.count == CertificateTransparencyCheck.appleRootFingerprints.count)
        #expect(apple.contains { "\($0.subject)".contains("CN=Apple Root Certificate Authority") })
    }

    // MARK: When CT applies

    @Test func aUserAnchorNeedsNoSCTs() async throws {
        let pki = try CTTestPKI()
        let verdict = try await pki.evaluate(pki.ca.leaf(), logs: Self.logs, public: false)
        #expect(verdict.isTrusted)
        #expect(verdict.certificateTransparency?.status == .notRequired)
        #expect(verdict.certificateTransparency?.explanation.contains("user-supplied anchor") == true)
    }

    @Test func aCustomAnchorThatIsAlsoAPublicRootStillNeedsSCTs() async throws {
        let pki = try CTTestPKI()
        // trustd asks whether the root is in the system store (kSecSystemAnchorSource), not how the app supplied it.
        let anchors = TrustAnchors(custom: [pki.root.input], systemRoots: pki.publicAnchors.systemRoots)
        var policy = PKI.ssl("www.example.com")
        policy.certificateTransparency = CertificateTransparencyOptions(logList: try pki.list(Self.logs))
        let oneSCT = pki.ca.leafWithSCTs([Self.logs[0]])
        let verdict = await PKI.evaluate(ServerTrust(certificates: [oneSCT.der, pki.ca.der], anchors: anchors, policy: policy,
                                                     validationTime: PKI.now))
        #expect(verdict.anchor == .custom)
        #expect(verdict.codes == [.certificateTransparency])
        #expect(verdict.certificateTransparency?.requiredSCTs == 2)
        // The 398-day limit for public roots applies through it too.
        policy.certificateTransparency.mode = .off
        let long = pki.ca.leaf(notValidBefore: PKI.now.addingTimeInterval(-86400), notValidAfter: PKI.now.addingTimeInterval(398 * 86400))
        let longVerdict = await PKI.evaluate(ServerTrust(certificates: [long.der, pki.ca.der], anchors: anchors, policy: policy,
                                                         validationTime: PKI.now))
        #expect(longVerdict.codes == [.validityPeriodTooLong])
        // The same root outside the public store stays the caller's own: neither applies.
        let own = await PKI.evaluate(ServerTrust(certificates: [long.der, pki.ca.der], anchors: pki.userAnchors, policy: policy,
                                                 validationTime: PKI.now))
        #expect(own.isTrusted, "\(own.failures)")
    }

    @Test func certificatesIssuedBeforeOctober2018NeedNoSCTs() async throws {
        let pki = try CTTestPKI()
        let nb = Date(timeIntervalSince1970: 1_539_647_999)  // 2018-10-15T23:59:59Z
        let leaf = pki.ca.leaf(notValidBefore: nb, notValidAfter: nb.addingTimeInterval(90 * 86400))
        let verdict = try await pki.evaluate(leaf, logs: Self.logs, at: nb.addingTimeInterval(86400))
        #expect(verdict.certificateTransparency?.status == .notRequired)
        #expect(verdict.failure(.certificateTransparency) == nil)
    }

    @Test func reportModeNotesWhatEnforceWouldRefuse() async throws {
        let pki = try CTTestPKI()
        let leaf = pki.ca.leafWithSCTs([Self.logs[0]])
        let verdict = try await pki.evaluate(leaf, logs: Self.logs, mode: .report)
        #expect(verdict.isTrusted)
        #expect(verdict.certificateTransparency?.status == .nonCompliant)
        #expect(verdict.notes.contains { $0.hasPrefix("Certificate Transparency (report only): ") })
        let off = try await pki.evaluate(leaf, logs: Self.logs, mode: .off)
        #expect(off.isTrusted)
        #expect(off.certificateTransparency == nil)
    }

    @Test func theBundledListIsNotEnforcedWhenOutOfDateAndTheVerdictSaysSo() async throws {
        let pki = try CTTestPKI()
        let bundled = try CTLogList.bundled()
        let date = try #require(bundled.date)
        var policy = PKI.ssl("www.example.com")
        policy.certificateTransparency = CertificateTransparencyOptions(mode: .enforce)
        let leaf = pki.ca.leaf(notValidBefore: date.addingTimeInterval(-86400), notValidAfter: date.addingTimeInterval(200 * 86400))
        func verdict(daysAfter days: Double) async -> TrustVerdict {
            await TrustEngine(cacheCapacity: 0).evaluate(ServerTrust(certificates: [leaf.der, pki.ca.der], anchors: pki.publicAnchors,
                                                                    policy: policy, validationTime: date.addingTimeInterval(days * 86400)))
        }
        // trustd enforces while the list's last check-in is less than 60 × 86,400 s ago.
        let fresh = await verdict(daysAfter: 60 - 1.0 / 86400)
        #expect(fresh.certificateTransparency?.status == .noEmbeddedSCTs)
        #expect(!fresh.isTrusted)
        let stale = await verdict(daysAfter: 60)
        #expect(stale.isTrusted)
        #expect(stale.certificateTransparency?.status == .listOutOfDate)
        #expect(stale.notes.contains { $0.contains("is 60 days old") && $0.contains("once its list is 60 days old") })
    }

    // MARK: The validated-path cache

    @Test func theCacheNeverSkipsTheTimeOfAnSCT() async throws {
        let pki = try CTTestPKI()
        let engine = TrustEngine()
        let sctTime = PKI.now.addingTimeInterval(-3600)
        let leaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)), sctTime: sctTime)
        let cold = try await pki.evaluate(leaf, logs: Self.logs, engine: engine)
        #expect(cold.isTrusted)
        #expect(engine.cachedPathCount == 1)
        let cached = try await pki.evaluate(leaf, logs: Self.logs, engine: engine)
        #expect(cached.isTrusted)
        #expect(cached.certificateTransparency == cold.certificateTransparency)
        // Before the SCTs were issued, the leaf is valid but its SCTs are from the future.
        let earlier = try await pki.evaluate(leaf, logs: Self.logs, at: sctTime.addingTimeInterval(-60), engine: engine)
        #expect(!earlier.isTrusted)
        #expect(earlier.codes == [.certificateTransparency])
    }

    @Test func findingsWhereCTIsNotRequiredNeverAnswerWhereItIs() async throws {
        let pki = try CTTestPKI()
        let engine = TrustEngine()
        let sctTime = PKI.now.addingTimeInterval(-3600)
        let leaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)), sctTime: sctTime)
        #expect(try await pki.evaluate(leaf, logs: Self.logs, engine: engine).certificateTransparency?.status == .compliant)
        // iOS 12.0 predates CT enforcement: its findings hold at any time, and are kept with the path.
        let old = try await pki.evaluate(leaf, logs: Self.logs, platform: ApplePlatform(.iOS, 12), engine: engine)
        #expect(old.isTrusted)
        #expect(old.certificateTransparency?.status == .notRequired)
        // Back on the newest platform, before the SCTs were issued: CT applies again, and refuses.
        let earlier = try await pki.evaluate(leaf, logs: Self.logs, at: sctTime.addingTimeInterval(-60), engine: engine)
        #expect(!earlier.isTrusted)
        #expect(earlier.codes == [.certificateTransparency])
        #expect(earlier.certificateTransparency?.status == .nonCompliant)
    }

    /// trustd verifies SCTs hashed with SHA-1, SHA-256 or SHA-384, with ECDSA or RSA logs alike (RFC 6962 names only
    /// SHA-256); any other hash leaves the SCT unchecked, with the reason.
    @Test(arguments: [UInt8(2), 4, 5])
    func sctHashesTrustdAcceptsAreVerified(hash: UInt8) async throws {
        let pki = try CTTestPKI()
        let logs = [TestCTLog(name: "EC Log"), TestCTLog(name: "RSA Log", key: .rsa(try .init(keySize: .bits2048)))]
        let leaf = pki.ca.leafWithSCTs(logs, hash: hash)
        let verdict = try await pki.evaluate(leaf, logs: logs)
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.certificateTransparency?.scts.map(\.verified) == [true, true])
    }

    @Test func anSCTHashTrustdDoesNotKnowIsUnchecked() async throws {
        let pki = try CTTestPKI()
        let leaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)), hash: 6)
        let verdict = try await pki.evaluate(leaf, logs: Self.logs)
        #expect(!verdict.isTrusted)
        #expect(verdict.certificateTransparency?.scts.first?.reason?.contains("its hash algorithm 6 is none of SHA-1 (2), SHA-256 (4) and SHA-384 (5)") == true,
                "\(String(describing: verdict.certificateTransparency?.scts.first?.reason))")
    }

    /// NSRequiresCertificateTransparency = YES asks for SCTs where the system asks for none (iOS 12.0), of chains to a
    /// public root only; the cache keeps the two apart.
    @Test func theATSKeyRequiresCTBeforeTheSystemDoes() async throws {
        let pki = try CTTestPKI()
        let engine = TrustEngine()
        let ios12 = ApplePlatform(.iOS, 12)
        let bare = pki.ca.leafWithSCTs([])
        #expect(try await pki.evaluate(bare, logs: Self.logs, platform: ios12, engine: engine).isTrusted)
        let asked = try await pki.evaluate(bare, logs: Self.logs, platform: ios12, requiredByConfiguration: true, engine: engine)
        #expect(!asked.isTrusted)
        #expect(asked.codes == [.certificateTransparency])
        #expect(asked.certificateTransparency?.status == .nonCompliant)
        let logged = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)))
        let good = try await pki.evaluate(logged, logs: Self.logs, platform: ios12, requiredByConfiguration: true, engine: engine)
        #expect(good.isTrusted)
        #expect(good.certificateTransparency?.status == .compliant)
        #expect(try await pki.evaluate(bare, logs: Self.logs, public: false, platform: ios12, requiredByConfiguration: true).isTrusted)
    }

    /// The key lifts the 2018-10-16 start where the system requires no CT; where it does, the key is obsolete and changes
    /// nothing, so a leaf issued before that day still needs none.
    @Test func theATSKeyCoversOlderCertificatesOnlyBeforeTheSystemRequiresCT() {
        let old = PKI.chain().intermediate.leaf(dns: ["www.example.com"], notValidBefore: Date(timeIntervalSince1970: 1_530_000_000),
                                        notValidAfter: Date(timeIntervalSince1970: 1_560_000_000))
        func required(platform: Bool, key: Bool) -> Bool {
            AppleCTPolicy.applicability(leaf: old.certificate, AppleCTPolicy.Inputs(
                time: Date(timeIntervalSince1970: 1_540_000_000), anchorIsPublic: true, anchorIsApple: false,
                platformRequiresCT: platform, requiredByConfiguration: key)).isRequired
        }
        #expect(required(platform: false, key: true))
        #expect(!required(platform: false, key: false))
        #expect(!required(platform: true, key: false))
        #expect(!required(platform: true, key: true))
    }

    @Test func theCacheNoticesWhenTheListGrowsOld() async throws {
        let pki = try CTTestPKI()
        let engine = TrustEngine()
        let leaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)))
        let dated = try CTLogList(json: TestCTLog.logList(Self.logs), source: .bundled, date: PKI.now.addingTimeInterval(-50 * 86400))
        var policy = PKI.ssl("www.example.com")
        policy.certificateTransparency = CertificateTransparencyOptions(logList: dated)
        func at(_ days: Double) async -> TrustVerdict {
            await engine.evaluate(ServerTrust(certificates: [leaf.der, pki.ca.der], anchors: pki.publicAnchors, policy: policy,
                                              validationTime: PKI.now.addingTimeInterval(days * 86400)))
        }
        #expect(await at(0).certificateTransparency?.status == .compliant)
        #expect(await at(9).certificateTransparency?.status == .compliant)
        let old = await at(10)
        #expect(old.isTrusted)
        #expect(old.certificateTransparency?.status == .listOutOfDate)
        #expect(old.notes.contains { $0.contains("is 60 days old") })
        // Not enforced, the leaf's SCTs are still named, none checked or counted.
        let named = old.certificateTransparency?.scts ?? []
        #expect(Set(named.compactMap(\.log)) == Set(Self.logs.prefix(2).map(\.name)))
        #expect(named.count == 2 && named.allSatisfy { !$0.counted && $0.verified == nil && $0.reason?.contains("not enforced") == true })
        #expect(await at(1).certificateTransparency?.status == .compliant)
    }

    @Test func aPathCachedWithoutCTIsCheckedForCTLater() async throws {
        let pki = try CTTestPKI()
        let engine = TrustEngine()
        let leaf = pki.ca.leafWithSCTs([Self.logs[0]])
        #expect(try await pki.evaluate(leaf, logs: Self.logs, mode: .off, engine: engine).isTrusted)
        let enforced = try await pki.evaluate(leaf, logs: Self.logs, engine: engine)
        #expect(!enforced.isTrusted)
        #expect(enforced.codes == [.certificateTransparency])
        // Another list is another policy.
        var rejected = Self.logs[0]
        rejected.state = "rejected"
        let twoLeaf = pki.ca.leafWithSCTs(Array(Self.logs.prefix(2)))
        #expect(try await pki.evaluate(twoLeaf, logs: Self.logs, engine: engine).isTrusted)
        #expect(try await !pki.evaluate(twoLeaf, logs: [rejected] + Self.logs.dropFirst(), engine: engine).isTrusted)
    }
}

extension EmbeddedSCTs.Reading {
    var present: [SignedCertificateTimestamp]? {
        if case .present(let s) = self { return s }
        return nil
    }
}
