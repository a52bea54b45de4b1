import TestSupport
import AppTransportSecurity
import NIOSSL
import Testing

@testable import TransportClient

@Suite struct TLSSettingsTests {
    private func requirements(_ policy: ATSPolicy, _ url: String = "https://www.example.test/") throws -> ConnectionRequirements {
        try policy.requirements(for: url)
    }

    /// With NIOSSL imported too, the ATS type is named through its module: no type of the module's name shadows it
    /// (review-api F14).
    @Test func theATSVersionTypeCanBeQualifiedBesideNIOSSLs() {
        let ats: AppTransportSecurity.TLSVersion = .tls12
        let nio: NIOSSL.TLSVersion = .tlsv12
        #expect(ats.description.contains("1.2") && nio == .tlsv12)
    }

    @Test func defaultATSSetsTLS12MinimumAndOnlyKnownSuites() throws {
        let req = try requirements(.default())
        let tls = TLSSettings.configuration(for: try TLSParameters(req), identity: nil)
        #expect(tls.minimumTLSVersion == .tlsv12)
        #expect(tls.maximumTLSVersion == .tlsv13)
        #expect(tls.certificateVerification == .noHostnameVerification)
        // Our callback alone decides trust: BoringSSL gets no roots (not the system bundle, parsed per context).
        #expect(tls.trustRoots == .certificates([]))
        let names = tls.cipherSuites.split(separator: ":").map(String.init)
        // ATS lists C024 and C028, which BoringSSL lacks; they are left out rather than handed over.
        #expect(!names.contains("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384"))
        #expect(!names.contains("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384"))
        #expect(names.contains("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"))
        #expect(!names.contains { $0.hasPrefix("TLS_RSA_") })
        // The context builds (a cipher string matching nothing would stop the process here).
        _ = try NIOSSLContext(configuration: tls)
    }

    @Test func disabledATSStillSetsAnExplicitMinimum() throws {
        let tls = TLSSettings.configuration(for: try TLSParameters(try requirements(.disabled)), identity: nil)
        #expect(tls.minimumTLSVersion == .tlsv1)
        _ = try NIOSSLContext(configuration: tls)
    }

    @Test func forwardSecrecyOffAddsRSAKeyExchange() throws {
        let policy = ATSPolicy.configuration(exceptionDomains(["www.example.test": ["NSExceptionRequiresForwardSecrecy": .boolean(false)]]))
        let names = TLSSettings.configuration(for: try TLSParameters(try requirements(policy)), identity: nil).cipherSuites
        #expect(names.contains("TLS_RSA_WITH_AES_128_GCM_SHA256"))
    }

    @Test func tls13OnlyStillGivesAMatchingCipherString() throws {
        let policy = ATSPolicy.configuration(exceptionDomains(["www.example.test": ["NSExceptionMinimumTLSVersion": .string("TLSv1.3")]]))
        let tls = TLSSettings.configuration(for: try TLSParameters(try requirements(policy)), identity: nil)
        #expect(tls.minimumTLSVersion == .tlsv13)
        #expect(!tls.cipherSuites.isEmpty)
        _ = try NIOSSLContext(configuration: tls)
    }

    @Test func everyTableSuiteIsOneBoringSSLAccepts() throws {
        // Each suite alone must make a context; a wrong entry in the table would stop the process.
        #expect(!TLSParameters.implementedSuites.isEmpty)
        for code in TLSParameters.implementedSuites.sorted() {
            // A suite the table offers but cannot name would be skipped, so it fails here.
            let suite = try #require(CipherSuite.known.first(where: { $0.code == code }), "suite \(code) is offered but has no name")
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.cipherSuites = suite.name
            tls.maximumTLSVersion = .tlsv12
            _ = try NIOSSLContext(configuration: tls)
        }
    }
}
