import Testing

@testable import TransportClient

/// Pool keys are hashed once; equality still compares every part, so two connections share a key only when all match.
@Suite struct PoolKeyTests {
    private let base = PoolKey(scheme: "https", host: "a.test", port: 443, settings: "tls1.2|-", proxy: "")

    @Test func equalPartsMakeEqualKeysWithEqualHashes() {
        let again = PoolKey(scheme: "https", host: "a.test", port: 443, settings: "tls1.2|-", proxy: "")
        #expect(base == again && base.hashValue == again.hashValue)
        #expect(Set([base, again]).count == 1)
    }

    @Test func anyDifferingPartMakesAnotherKey() {
        let others = [
            PoolKey(scheme: "http", host: "a.test", port: 443, settings: "tls1.2|-", proxy: ""),
            PoolKey(scheme: "https", host: "b.test", port: 443, settings: "tls1.2|-", proxy: ""),
            PoolKey(scheme: "https", host: "a.test", port: 8443, settings: "tls1.2|-", proxy: ""),
            PoolKey(scheme: "https", host: "a.test", port: 443, settings: "tls1.3|-", proxy: ""),
            PoolKey(scheme: "https", host: "a.test", port: 443, settings: "tls1.2|-", proxy: "http://proxy.test:3128"),
        ]
        for other in others { #expect(other != base, "\(other)") }
        #expect(Set(others + [base]).count == 6)
    }
}
