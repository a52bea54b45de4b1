@testable import ATSDiagnostics
import ATSTestServers
import Foundation
import TestSupport
import DiagnosisTestSupport
import Testing

/// A URL whose server is good but redirects to one that is not: the report names the redirect target, shows its chain,
/// and does not blame (or recommend an exception for) the URL's own host.
@Suite struct RedirectTargetTests {
    @Test func aFailingRedirectTargetIsNamedWithItsOwnChain() async throws {
        let servers = try await SharedServers.shared.servers()
        let target = try #require(servers.url(for: .selfSigned))
        let targetPort = try #require(URLComponents(string: target)?.port)
        let redirecting = try await LocalServer.start(tls: try LocalServers.configuration(for: .good, pki: servers.pki),
                                                      response: .redirect(to: target))
        let diagnosis: HostDiagnosis
        do {
            diagnosis = try await localDiagnoser(servers).gated("https://127.0.0.1:\(redirecting.port)/")
        } catch {
            await redirecting.shutdown()
            throw error
        }
        await redirecting.shutdown()

        let first = try #require(diagnosis.outcome("default"))
        #expect(!first.passed)
        #expect(first.failure?.redirectTarget == RedirectTarget(host: "127.0.0.1", port: targetPort))
        #expect(first.failure?.redirectTarget?.description == "127.0.0.1:\(targetPort)")
        // The chain shown is the self-signed target's, a single certificate, not the good server's three.
        #expect(diagnosis.chain.first?.presented == true)
        #expect(diagnosis.chain.first.map { $0.subject == $0.issuer } == true, "\(diagnosis.chain.map(\.subject))")
        #expect(diagnosis.recommendation.kind == .noExceptionHelps)
        #expect(diagnosis.recommendation.summary.contains("redirects to 127.0.0.1:\(targetPort), and the load fails there"),
                "\(diagnosis.recommendation.summary)")
        #expect(DiagnosisRendering.text(diagnosis, verbose: true).contains("At : the redirect target 127.0.0.1:\(targetPort)"))
        // The JSON carries the target as host and port, as the documented schema says.
        let schemaData = try #require(FileManager.default.contents(atPath: SchemaValidator.diagnoseSchemaPath))
        let schema = try #require(try JSONSerialization.jsonObject(with: schemaData) as? [String: Any])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(DiagnosisRendering.json(diagnosis).utf8)) as? [String: Any])
        #expect(SchemaValidator.violations(of: document, against: schema).isEmpty)
        let failure = ((document["tests"] as? [[String: Any]])?.first?["failure"] as? [String: Any])
        let written = failure?["redirectTarget"] as? [String: Any]
        #expect(written?["host"] as? String == "127.0.0.1", "\(String(describing: failure))")
        #expect(written?["port"] as? Int == targetPort)
    }

    @Test func aTargetIsWrittenAsAURLAuthority() {
        #expect(RedirectTarget(host: "b.test", port: 8446).description == "b.test:8446")
        #expect(RedirectTarget(host: "::1", port: 8446).description == "[::1]:8446")
        #expect(RedirectTarget(host: "b.test", port: nil).description == "b.test")
        #expect(RedirectTarget(host: "::1", port: nil).description == "[::1]")
    }
}
