/// The package version, reported by `ats --version` and in conformance results.
package enum TransportSecurityVersion {
    public static let current = "0.1.0"
}
