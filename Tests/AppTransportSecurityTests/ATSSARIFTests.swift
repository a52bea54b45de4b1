import ATSTestSupport
import Foundation
import Testing

@testable import AppTransportSecurity

/// `ats audit --format sarif` against the SARIF 2.1.0 required properties and GitHub code scanning's expectations
/// (``SARIFValidator``).
@Suite struct ATSSARIFTests {
    @Test func sarifForTypicalMistakesIsValid() throws {
        let body = """
            <key>NSAllowsArbitraryLoads</key><integer>1</integer>
            <key>NSExceptionDomains</key><dict><key>Old.example.com:80</key><dict>
            <key>NSExceptionMinimumTLSVerion</key><string>TLSv1.0</string></dict></dict>
            """
        let report = Auditor().audit([try ConfigurationLoader().load(data: Data(ATSFixture.infoPlist(body).utf8), name: "My App/Info.plist")])
        #expect(report.findings.count >= 3)
        let sarif = SARIFReportRenderer(toolVersion: "0.1.0").render(report)
        #expect(try SARIFValidator.validate(sarif) == report.findings.count)
        #expect(sarif.contains("My%20App/Info.plist"))
    }

    @Test func sarifWithoutFindingsIsValid() throws {
        let report = Auditor().audit([try ATSFixture.source(ATSFixture.infoPlist(""))])
        #expect(try SARIFValidator.validate(SARIFReportRenderer(toolVersion: "0.1.0").render(report)) == 0)
    }

    @Test func validatorRejectsBrokenLogs() {
        #expect(throws: SARIFValidator.SARIFError.self) { try SARIFValidator.validate(#"{"version":"2.0.0","runs":[]}"#) }
        #expect(throws: SARIFValidator.SARIFError.self) {
            try SARIFValidator.validate(#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rules":[{"id":"A"}]}},"results":[{"ruleId":"A","message":{"text":"m"}}]}]}"#)
        }
        #expect(throws: SARIFValidator.SARIFError.self) {
            try SARIFValidator.validate(#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","rules":[{"id":"A"}]}},"results":[{"ruleId":"B","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a"}}}]}]}]}"#)
        }
    }
}
