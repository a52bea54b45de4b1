import TestSupport
import DiagnosisTestSupport
import NIOConcurrencyHelpers
import ATSDiagnostics
import ATSTestServers
import Foundation
import NIOSSL
import Testing
import TransportTrust

/// A host that stalls, resets, answers garbage or sends a huge chain fails every test, each for its own reason (a
/// stall by the timeout), and never stops a scan.
@Suite struct HostileServerTests {
    /// The per-test limit. Long enough that a reset or garbage arrives before it even on two busy cores, so each
    /// case fails for its own reason; a stall fails by it.
    static let timeout: Duration = .seconds(5)

    /// For a server that answers at once (garbage, a reset): a limit no busy machine reaches, so that only the
    /// server's own misbehaviour can end the test, never the clock.
    static let answeringTimeout: Duration = .seconds(30)

    private func diagnose(_ url: String, anchors: TrustAnchors = TrustAnchors(custom: []),
                          timeout: Duration = Self.timeout) async throws -> HostDiagnosis {
        let diagnoser = Diagnoser(options: DiagnosisOptions(anchors: anchors, timeout: timeout))
        return try await DiagnosisGate.shared.run { try await diagnoser.diagnose(url: url) }
    }

    @Test(arguments: [(Misbehaviour.stall, "timedOut"), (.reset, "connectionClosed"), (.garbage, "malformedResponse")])
    func aMisbehavingServerFailsEveryTestForItsOwnReason(_ behaviour: Misbehaviour, _ kind: String) async throws {
        let server = try await LocalServer.hostile(behaviour)
        try await withShutdown({ await server.shutdown() }) {
            let answers = behaviour != .stall
            let diagnosis = try await diagnose("https://127.0.0.1:\(server.port)/", timeout: answers ? Self.answeringTimeout : Self.timeout)
            #expect(diagnosis.tests.allSatisfy { $0.result == .fail })
            #expect(diagnosis.outcome("default")?.failure?.kind == kind, "\(diagnosis.outcome("default")?.failure?.message ?? "")")
            #expect(diagnosis.recommendation.kind == .noExceptionHelps)
            #expect(diagnosis.chain.isEmpty)
        }
    }

    @Test func aHugeChainIsRefused() async throws {
        let servers = try await SharedServers.shared.servers()
        let chain = try servers.pki.longChain(depth: 150)
        let server = try await LocalServer.start(tls: try LocalServers.serverConfiguration(chain: chain), response: .text("huge\n"))
        try await withShutdown({ await server.shutdown() }) {
            let anchors = TrustAnchors(custom: [try InputCertificate(der: servers.pki.untrustedRoot.der)])
            let diagnosis = try await diagnose("https://127.0.0.1:\(server.port)/", anchors: anchors)
            #expect(diagnosis.tests.allSatisfy { $0.result == .fail })
            #expect(diagnosis.outcome("default")?.failure != nil)
        }
    }

    @Test func oneHostileHostDoesNotStopAScan() async throws {
        let servers = try await SharedServers.shared.servers()
        let stall = try await LocalServer.hostile(.stall)
        try await withShutdown({ await stall.shutdown() }) {
            let good = try #require(servers.url(for: .good))
            let urls = ["https://127.0.0.1:\(stall.port)/", good, good]
            let anchors = TrustAnchors(custom: try CertificateLoader.certificates(atPath: servers.caFile))
            // The stall costs the whole timeout; the good hosts need far less, even on two busy cores.
            let scan = DiagnosisScan(diagnoser: Diagnoser(options: DiagnosisOptions(anchors: anchors, timeout: .seconds(10))), concurrency: 2)
            let results = ResultBox()
            await DiagnosisGate.shared.run { await scan.run(urls) { results.add($0) } }
            #expect(results.values.count == 3)
            #expect(results.values.filter(\.defaultPasses).count == 2)
        }
    }
}

final class ResultBox: Sendable {
    private let items = NIOLockedValueBox<[HostDiagnosis]>([])
    func add(_ d: HostDiagnosis) { items.withLockedValue { $0.append(d) } }
    var values: [HostDiagnosis] { items.withLockedValue { $0 } }
}
