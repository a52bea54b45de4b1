import AppTransportSecurity
import Testing

@testable import TransportClient

/// A report's fields live in one box its copies share; it still reads, changes and prints as a plain struct.
@Suite struct ConnectionReportTests {
    private func report() throws -> ConnectionReport {
        let requirements = try RequirementsResolver(configuration: ATSConfiguration()).requirements(for: "http://example.test/")
        return ConnectionReport(scheme: "http", host: "example.test", port: 80, handshake: nil, verdict: nil,
                                atsEvaluation: requirements.evaluate(ConnectionDescription(scheme: "http")),
                                requirements: requirements, notes: ["a note"], httpVersion: "HTTP/1.1", alpn: nil)
    }

    @Test func aCopyChangedLeavesTheOriginal() throws {
        let original = try report()
        var copy = original
        copy.host = "other.test"
        copy.notes.append("another")
        #expect(original.host == "example.test" && original.notes == ["a note"])
        #expect(copy.host == "other.test" && copy.notes == ["a note", "another"] && copy.port == 80)
    }

    @Test func itPrintsItsFieldsNotItsBox() throws {
        let text = String(describing: try report())
        #expect(text.hasPrefix("ConnectionReport(scheme: \"http\", host: \"example.test\", port: 80"), "\(text)")
        #expect(!text.contains("Storage"))
    }
}
