import TransportTrust

/// The server's chain as the report shows it: the certificates presented, plus the anchor they reached.
enum ChainReport {
    /// The tests whose verdict best describes the chain, most telling first: the default test holds the chain to
    /// every ATS rule; the TLS exception tests still require ATS key strength; the rest relax it.
    static let preference = ["default", "tls1.0", "tls1.1", "tls1.2", "tls1.3", "arbitrary-loads"]

    /// The verdict the report describes: the most telling test's.
    static func verdict(_ outcomes: [TestOutcome]) -> TrustVerdict? {
        (preference.compactMap { id in outcomes.first { $0.test.id == id } } + outcomes).lazy.compactMap(\.verdict).first
    }

    static func entries(host: String, outcomes: [TestOutcome]) -> [ChainEntry] {
        let ranked = preference.compactMap { id in outcomes.first { $0.test.id == id } } + outcomes
        let verdict = Self.verdict(outcomes)
        let presented = ranked.lazy.map(\.presented).first { !$0.isEmpty } ?? []
        var certificates: [(der: [UInt8], presented: Bool)] = presented.map { ($0, true) }
        if certificates.isEmpty { certificates = (verdict?.chain ?? []).map { ($0.der, false) } }
        if let verdict, verdict.anchor != nil, let anchor = verdict.chain.last, !certificates.contains(where: { $0.der == anchor.der }) {
            certificates.append((anchor.der, false))
        }
        // Failures by the DER of the certificate they concern; failures about no certificate go to the leaf.
        var failures: [[UInt8]: [String]] = [:]
        for failure in verdict?.failures ?? [] {
            let der = failure.certificate.flatMap { i in verdict?.chain.indices.contains(i) == true ? verdict?.chain[i].der : nil }
                ?? certificates.first?.der ?? []
            failures[der, default: []].append("\(failure.code.rawValue): \(failure.message)")
        }
        return certificates.enumerated().compactMap { index, item in
            guard let input = try? InputCertificate(der: item.der) else { return nil }
            let summary = CertificateSummary(input)
            let isAnchor = verdict?.anchor != nil && verdict?.chain.last?.der == item.der
            let role = index == 0 ? "leaf" : (isAnchor ? "anchor" : "intermediate")
            return ChainEntry(role: role, presented: item.presented, subject: summary.subject, issuer: summary.issuer,
                              keyType: summary.keyType, keySize: summary.keySize, signatureAlgorithm: summary.signatureAlgorithm,
                              notValidBefore: summary.notValidBefore, notValidAfter: summary.notValidAfter,
                              subjectAlternativeNames: summary.subjectAlternativeNames,
                              sanMatchesHost: index == 0 ? sanMatches(summary.subjectAlternativeNames, host: host) : nil,
                              spkiSHA256: summary.spkiSHA256, atsVerdict: failures[item.der] ?? ["ok"],
                              scts: index == 0 ? verdict?.certificateTransparency?.scts ?? [] : [])
        }
    }

    /// A display fact for the leaf: an exact name or address, or a `*.` wildcard over exactly one label. The
    /// trust verdict (with its public-suffix and IDN rules) is what decides.
    static func sanMatches(_ names: [String], host: String) -> Bool {
        let host = host.lowercased()
        return names.contains { name in
            if name.hasPrefix("IP:") { return String(name.dropFirst(3)).lowercased() == host }
            guard name.hasPrefix("DNS:") else { return false }
            let pattern = name.dropFirst(4).lowercased()
            if pattern == host { return true }
            guard pattern.hasPrefix("*."), let dot = host.firstIndex(of: ".") else { return false }
            return host[host.index(after: dot)...] == pattern.dropFirst(2)
        }
    }
}
