import TransportTrust

/// Audits ATS configurations: MobSF's checks, plus typing, spelling, dead keys, unmatchable domains, pins and
/// contradictions between an app and its extensions.
public struct Auditor: Sendable {
    /// The release whose ATS rules the audit applies.
    public var profile: PlatformProfile
    /// The exact release, for the rules that changed inside a profile's range (see ``RequirementsResolver/platform``).
    public var platform: ApplePlatform

    /// Audits under `profile`'s rules, as its newest release applies them.
    public init(profile: PlatformProfile = .newest) {
        self.profile = profile
        self.platform = profile.newestRelease
    }

    /// Audits under the rules of the release `platform`.
    public init(platform: ApplePlatform) {
        self.profile = PlatformProfile(platform)
        self.platform = platform
    }

    /// Audits every source (an app and its extensions are compared with each other).
    public func audit(_ sources: [ConfigurationSource]) -> AuditReport {
        var findings: [Finding] = []
        for source in sources { findings += self.findings(in: source) }
        findings += contradictions(sources)
        return AuditReport(profile: profile, sources: sources.map(\.displayName), findings: findings,
                           readings: sources.map { AuditReport.Reading(source: $0.displayName, layout: $0.layout, reason: $0.layoutReason) })
    }

    /// The findings for one source.
    public func findings(in source: ConfigurationSource) -> [Finding] {
        var out = FindingCollector(source: source)
        let config = source.configuration
        for issue in source.containerIssues { out.containerIssue(issue) }
        for issue in config.issues { out.issue(issue) }
        globalKeys(config, &out)
        for entry in config.exceptionDomains { exceptionDomain(entry, &out) }
        for entry in config.pinnedDomains { pinnedDomain(entry, &out) }
        duplicateDomains(config.exceptionDomains.map { ($0.key, $0.keyPath) }, &out)
        duplicateDomains(config.pinnedDomains.map { ($0.key, $0.keyPath) }, &out)
        pinnedHostsOverHTTP(config, &out)
        if !profile.supportsPinnedDomains, config.presentKeys.contains(.pinnedDomains) {
            out.add(.pinnedDomainsUnsupported, PlistKeyPath([ATSKey.pinnedDomains.rawValue]),
                    message: "NSPinnedDomains is ignored on \(profile): the system reads it from iOS 14 / macOS 11, so connections there are not pinned",
                    fix: "Raise the deployment target to iOS 14 / macOS 11, or check the pins in code (a URLSession delegate) on earlier systems")
        }
        return out.findings.sorted { ($0.location?.line ?? Int.max, $0.rule.id) < ($1.location?.line ?? Int.max, $1.rule.id) }
    }

    /// The findings for how the plist is written (wrong types, unknown, misplaced and duplicate keys, bad
    /// values), without judging the settings: what `ats check` warns about before resolving a URL.
    public func readingFindings(in source: ConfigurationSource) -> [Finding] {
        var out = FindingCollector(source: source)
        for issue in source.containerIssues { out.containerIssue(issue) }
        for issue in source.configuration.issues { out.issue(issue) }
        return out.findings.sorted { ($0.location?.line ?? Int.max, $0.rule.id) < ($1.location?.line ?? Int.max, $1.rule.id) }
    }

    private func makeResolver(_ config: ATSConfiguration) -> RequirementsResolver {
        var resolver = RequirementsResolver(configuration: config, profile: profile)
        resolver.platform = platform
        return resolver
    }

    private func globalKeys(_ config: ATSConfiguration, _ out: inout FindingCollector) {
        let resolver = makeResolver(config)
        if let s = config.allowsArbitraryLoads, s.value {
            if resolver.arbitraryLoadsIgnoredReason() != nil {
                // Two facts, each said once: from iOS 10 / macOS 10.12 the key is ignored (ATS104, whatever the profile's
                // name), and on iOS 9 / macOS 10.11, which know none of the overriding keys, it turns ATS off (ATS100).
                let present = [ATSKey.allowsArbitraryLoadsForMedia, .allowsArbitraryLoadsInWebContent, .allowsLocalNetworking]
                    .filter { config.presentKeys.contains($0) }.map(\.rawValue)
                out.add(.arbitraryLoadsIgnored, s.keyPath,
                        message: "NSAllowsArbitraryLoads is ignored from iOS 10 / macOS 10.12 on, because \(present.joined(separator: " and ")) \(present.count == 1 ? "is" : "are") present",
                        fix: "Remove NSAllowsArbitraryLoads unless the app supports iOS 9 / macOS 10.11")
                out.add(.arbitraryLoads, s.keyPath, severity: .medium,
                        message: "NSAllowsArbitraryLoads is YES: on iOS 9 / macOS 10.11 it turns ATS off for every domain not in NSExceptionDomains",
                        fix: "Remove it, or list the domains that need exceptions in NSExceptionDomains")
            } else {
                out.add(.arbitraryLoads, s.keyPath, message: "NSAllowsArbitraryLoads is YES: ATS is off for every domain not in NSExceptionDomains (plain HTTP, any TLS version, weak ciphers)",
                        fix: "Remove NSAllowsArbitraryLoads and add NSExceptionDomains entries for the hosts that need them")
            }
        }
        // iOS 9 knows none of these three keys, so there they change nothing; they still loosen ATS from iOS 10 on.
        let unknownHere = profile.generation < .ats2
        func add(_ rule: AuditRule, _ s: Setting<Bool>, _ effect: String, fix: String) {
            if unknownHere {
                out.add(rule, s.keyPath, severity: .low,
                        message: "\(s.key) is YES: \(profile) does not know the key, so it has no effect there; from iOS 10 / macOS 10.12 on, \(effect)",
                        fix: fix)
            } else {
                out.add(rule, s.keyPath, message: "\(s.key) is YES: \(effect)", fix: fix)
            }
        }
        if let s = config.allowsArbitraryLoadsForMedia, s.value {
            add(.arbitraryLoadsForMedia, s, "AVFoundation loads media over plain HTTP and weak TLS",
                fix: "Serve media over HTTPS and remove the key, or give only the media hosts exceptions")
        }
        if let s = config.allowsArbitraryLoadsInWebContent, s.value {
            add(.arbitraryLoadsInWebContent, s, "web views load any content over plain HTTP",
                fix: "Remove the key unless the app is a browser; give specific hosts exceptions instead")
        }
        if let s = config.allowsLocalNetworking, s.value {
            let fix = "Keep it only if the app must talk to devices on the local network; otherwise remove it"
            switch profile.generation {
            case .ats1:
                add(.localNetworking, s, "unqualified names, .local names and IP addresses load without ATS", fix: fix)
            case .ats2:
                // The resolver exempts these hosts on these releases with or without the key: it loosens nothing here.
                out.add(.localNetworking, s.keyPath, severity: .low,
                        message: "\(s.key) is YES: no effect on \(profile), which already exempts unqualified names, .local names and IP addresses from ATS; from iOS 17 / macOS 14 on, IP addresses (any, not only private ones) load without ATS",
                        fix: fix)
            case .ats3:
                add(.localNetworking, s, "IP addresses (any, not only private ones) load without ATS; unqualified and .local names are exempt with or without it",
                    fix: fix)
            }
        }
    }

    private func exceptionDomain(_ entry: ExceptionDomain, _ out: inout FindingCollector) {
        let d = entry.name
        out.add(.exceptionDomain, entry.keyPath, domain: d, key: d, message: "\(d) has its own ATS settings; global keys do not apply to it",
                fix: "Check that the exception is still needed")
        exceptionDomainReach(entry, &out)
        let reach = EntryReach(entry, profile: profile)
        exceptionDomainLoosening(entry, reach, &out)
        for risk in entry.shadowedRisks {
            out.add(risk.rule, risk.legacy, severity: reach.risky(.medium), domain: d,
                    message: "\(risk.legacy.last ?? "") is \(risk.value) for \(d), overridden here by \(risk.winner); Apple does not document which key wins, and a device that read this one would be looser\(reach.note)",
                    fix: "Remove \(risk.legacy.last ?? "the legacy key"): \(risk.winner) says what the entry should")
        }
        for legacy in entry.legacyKeys {
            let path = entry.keyPath.appending(legacy.rawValue)
            out.add(.legacyKey, path, domain: d, message: "\(legacy.rawValue) is a legacy key",
                    fix: "Use \(legacy.modernReplacement?.rawValue ?? "the current key") instead")
        }
        if let ct = entry.requiresCertificateTransparency, platform.enforcesCertificateTransparency {
            out.add(.obsoleteCertificateTransparencyKey, ct.keyPath, domain: d,
                    message: "NSRequiresCertificateTransparency is obsolete on \(platform): since iOS 12.1.1 / macOS 10.14.2 the system requires CT for every publicly trusted certificate",
                    fix: "Remove the key")
        }
    }

    /// How far an exception entry's risky settings reach, which sets how high they rate.
    private struct EntryReach {
        /// Loopback traffic never leaves the device: whoever could read or change it already runs code there. Plain
        /// HTTP to it is info (ATS110), and weaker TLS or no forward secrecy on the same entry cannot rate higher.
        let loopback: Bool
        /// An entry that can never match has no effect: its risky settings are reported, but as low. So is an IP entry
        /// before iOS 17 / macOS 14, which ignore them (ATS132 says so).
        let dead: Bool
        /// Said after each risky setting's message when the entry has no effect.
        let note: String

        init(_ entry: ExceptionDomain, profile: PlatformProfile) {
            let ignored = entry.key.isIP && profile.generation < .ats3
            dead = !entry.key.problems.isEmpty || ignored
            loopback = entry.key.isLoopback
            note = ignored ? " (but \(profile) ignores IP entries, so this has no effect there)"
                : dead ? " (but the entry never matches, so this has no effect)" : ""
        }

        func risky(_ s: Severity) -> Severity { loopback ? .info : dead ? min(s, .low) : s }
    }

    /// Which hosts the entry matches: none when it can never match, an address it may not cover, its subdomains.
    private func exceptionDomainReach(_ entry: ExceptionDomain, _ out: inout FindingCollector) {
        let d = entry.name
        if !entry.key.problems.isEmpty {
            let why = entry.key.problems.map(\.description).joined(separator: "; ")
            out.add(.unmatchableDomain, entry.keyPath, domain: d, key: d,
                    message: "NSExceptionDomains entry '\(d)' can never match a host: \(why)",
                    fix: "Write the bare host in lowercase, e.g. '\(Self.suggestedHost(d))', with NSIncludesSubdomains for subdomains")
        }
        if entry.key.isIP {
            if let sub = entry.includesSubdomains, sub.value {
                out.add(.includesSubdomainsOnIP, sub.keyPath, domain: d, message: "NSIncludesSubdomains has no effect on the IP entry \(d)",
                        fix: "Remove NSIncludesSubdomains; on iOS 17 / macOS 14 use a CIDR range such as 192.168.0.0/16 for several addresses")
            }
            if profile.generation < .ats3 {
                out.add(.ipExceptionUnsupported, entry.keyPath, domain: d, key: d,
                        message: "\(d) is an IP exception; \(profile) ignores IP entries in NSExceptionDomains",
                        fix: "For earlier systems use NSAllowsLocalNetworking (iOS 10+) or connect by name")
            }
        } else if let sub = entry.includesSubdomains, sub.value {
            out.add(.includesSubdomains, sub.keyPath, domain: d, message: "the exception for \(d) covers its subdomains: all of them as devices have long applied it, or one label down only as Apple's current NSIncludesSubdomains page says",
                    fix: "Set NSIncludesSubdomains only if every subdomain needs the same exception")
        }
    }

    /// The settings that loosen ATS for the entry's hosts: plain HTTP, an old TLS minimum, no forward secrecy.
    private func exceptionDomainLoosening(_ entry: ExceptionDomain, _ reach: EntryReach, _ out: inout FindingCollector) {
        let d = entry.name
        if let http = entry.allowsInsecureHTTPLoads, http.value {
            out.add(.insecureHTTPException, http.keyPath, severity: reach.risky(.high), domain: d,
                    message: "\(http.key) is YES for \(d): plain HTTP is allowed\(entry.coversSubdomains && !entry.key.isIP ? " (and for its subdomains)" : ""), and the app may loosen server trust for HTTPS\(reach.note)",
                    fix: "Serve \(d) over HTTPS and remove \(http.key)")
        }
        if let tls = entry.minimumTLSVersion {
            if tls.value < .tls12 {
                out.add(.weakMinimumTLS, tls.keyPath, severity: reach.risky(.high), domain: d,
                        message: "\(tls.key) is \(tls.value) for \(d); TLS 1.0 and 1.1 are deprecated (RFC 8996)\(reach.note)",
                        fix: "Upgrade the server to TLS 1.2 or later and remove the key")
            } else {
                out.add(.explicitMinimumTLS, tls.keyPath, domain: d, message: "\(tls.key) is \(tls.value) for \(d)\(tls.value == .tls12 ? ", the ATS default" : "")",
                        fix: tls.value == .tls12 ? "Remove the key; TLS 1.2 is already the minimum" : "No change needed")
            }
        }
        if let fs = entry.requiresForwardSecrecy, !fs.value {
            // Under a TLS 1.3 minimum no RSA key-exchange suite can be negotiated; only the key-size check goes.
            let tls13Only = (entry.minimumTLSVersion?.value ?? .tls12) > .tls12
            out.add(.forwardSecrecyDisabled, fs.keyPath, severity: reach.risky(tls13Only ? .medium : .high), domain: d,
                    message: tls13Only
                        ? "\(fs.key) is NO for \(d): the minimum is TLS 1.3, whose suites all have forward secrecy, so only the certificate key-size check is dropped\(reach.note)"
                        : "\(fs.key) is NO for \(d): RSA key-exchange suites are allowed and the certificate key-size check is dropped\(reach.note)",
                    fix: "Enable ECDHE suites on the server and remove the key")
        }
    }

    private func pinnedDomain(_ entry: PinnedDomain, _ out: inout FindingCollector) {
        let d = entry.name
        if !entry.key.problems.isEmpty {
            let why = entry.key.problems.map(\.description).joined(separator: "; ")
            out.add(.unmatchableDomain, entry.keyPath, domain: d, key: d, message: "NSPinnedDomains entry '\(d)' can never match a host: \(why)",
                    fix: "Write the bare host in lowercase, e.g. '\(Self.suggestedHost(d))'")
        }
        let lists: [(ATSKey, [PinnedIdentity]?)] = [(.pinnedCAIdentities, entry.caIdentities), (.pinnedLeafIdentities, entry.leafIdentities)]
        // Identities written without a readable hash are each a malformed pin (ATS151), not an absence of pins.
        if lists.allSatisfy({ $0.1?.isEmpty ?? true }), entry.unreadIdentities == 0 {
            out.add(.emptyPinnedDomain, entry.keyPath, domain: d, key: d,
                    message: "the pinned domain \(d) has no identities: neither NSPinnedCAIdentities nor NSPinnedLeafIdentities lists a pin",
                    fix: "Add at least two SPKI-SHA256-BASE64 pins (a current key and a backup), or remove the entry")
        }
        for (key, list) in lists {
            guard let list else { continue }
            let path = entry.keyPath.appending(key.rawValue)
            if list.isEmpty, lists.contains(where: { !($0.1?.isEmpty ?? true) }) {
                out.add(.emptyPinnedDomain, path, domain: d, message: "\(key.rawValue) for \(d) is an empty array, so no chain can match it",
                        fix: "Add pins to \(key.rawValue) or remove the key")
            }
            if list.count == 1 {
                out.add(.pinWithoutBackup, path, domain: d, message: "\(key.rawValue) for \(d) has one pin and no backup; a key rotation will break every connection",
                        fix: "Add a backup pin for a key kept offline (the hash of its SubjectPublicKeyInfo)")
            }
            for (i, pin) in list.enumerated() where !pin.isWellFormed {
                let why = pin.digest.map { "decodes to \($0.count) bytes, not 32" } ?? "is not valid base64"
                out.add(.malformedPin, path.appending(String(i)).appending(ATSKey.spkiSHA256Base64.rawValue), domain: d,
                        message: "pin \(i) of \(key.rawValue) for \(d) \(why), so it can never match",
                        fix: "Use `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`")
            }
        }
    }

    /// Pinned hosts that also accept plain HTTP: pins protect only HTTPS. The hosts tried are each pinned entry's own
    /// and every exception entry's, since an entry with NSIncludesSubdomains pins the subdomains too. Each host is
    /// resolved once and reported against the pinned entry that governs it: trying every host for every pinned entry
    /// cost the cube of the entries (a 134 KB plist took a minute).
    private func pinnedHostsOverHTTP(_ config: ATSConfiguration, _ out: inout FindingCollector) {
        guard !config.pinnedDomains.isEmpty else { return }
        let resolver = makeResolver(config)
        var checked: Set<String> = []
        let hosts = (config.pinnedDomains.map(\.key) + config.exceptionDomains.map(\.key)).compactMap(Self.urlHost)
        for host in hosts {
            guard checked.insert(host).inserted, let target = try? ConnectionTarget(url: "http://\(host)/"),
                  let (entry, _) = resolver.matchingPinnedDomain(for: target) else { continue }
            // Web views and media loads have keys of their own that may allow HTTP where URLSession does not.
            let contexts: [LoadContext] = [.urlSession, .webContent, .media]
            guard let (context, req) = contexts.lazy.map({ ($0, resolver.requirements(for: target, url: "http://\(host)/", context: $0)) })
                .first(where: { $0.1.allowsInsecureHTTP.value }) else { continue }
            let d = entry.name
            let downgrade = "an attacker can downgrade to HTTP"
            let through = context == .urlSession ? "" : " for \(context == .webContent ? "web views" : "media loads")"
            out.add(.pinnedDomainAllowsHTTP, entry.keyPath, domain: d, key: d,
                    message: host == Self.urlHost(entry.key)
                        ? "\(d) is pinned but plain HTTP to it is allowed\(through) by \(req.allowsInsecureHTTP.because); \(downgrade)"
                        : "\(d) is pinned with its subdomains, but plain HTTP to \(target.host) is allowed\(through) by \(req.allowsInsecureHTTP.because); \(downgrade)",
                    fix: "Remove the insecure-HTTP exception for \(target.host)")
        }
    }

    /// The host of a URL to the entry's name or address (`example.com`, `10.0.0.1`, `[::1]`), nil for a range
    /// or an entry that never matches.
    static func urlHost(_ key: ATSDomainKey) -> String? {
        guard let pattern = key.pattern else { return nil }
        if case .addressRange = pattern.kind { return nil }
        return pattern.name.contains(":") ? "[\(pattern.name)]" : pattern.name
    }

    /// Compares the app with its extensions: same domain configured differently, pins missing, ATS off in one.
    private func contradictions(_ sources: [ConfigurationSource]) -> [Finding] {
        guard let app = sources.first(where: { $0.role == .app }) else { return [] }
        var out: [Finding] = []
        for ext in sources where ext.role == .appExtension {
            var collector = FindingCollector(source: ext)
            let a = app.configuration, e = ext.configuration
            if (a.allowsArbitraryLoads?.value ?? false) != (e.allowsArbitraryLoads?.value ?? false) {
                collector.add(.extensionContradiction, e.allowsArbitraryLoads?.keyPath ?? PlistKeyPath([ATSKey.allowsArbitraryLoads.rawValue]),
                              message: "NSAllowsArbitraryLoads is \(e.allowsArbitraryLoads?.value ?? false ? "YES" : "NO") here but \(a.allowsArbitraryLoads?.value ?? false ? "YES" : "NO") in the app (\(app.displayName))",
                              fix: "Give the extension the same ATS policy as the app")
            }
            for entry in e.exceptionDomains {
                guard let other = a.exceptionDomains.first(where: { Self.sameHost($0.key, entry.key) }) else { continue }
                let mine = Self.summary(entry), theirs = Self.summary(other)
                if mine != theirs {
                    collector.add(.extensionContradiction, entry.keyPath, domain: entry.name, key: entry.name,
                                  message: "\(entry.name) is configured as {\(mine)} here but {\(theirs)} in the app",
                                  fix: "Use one configuration for \(entry.name) in the app and all its extensions")
                }
            }
            for pinned in a.pinnedDomains where !e.pinnedDomains.contains(where: { Self.sameHost($0.key, pinned.key) }) {
                collector.add(.extensionContradiction, PlistKeyPath([ATSKey.pinnedDomains.rawValue]), domain: pinned.name,
                              message: "the app pins \(pinned.name) but this extension does not, so its connections to \(pinned.name) skip the pins",
                              fix: "Copy the NSPinnedDomains entry for \(pinned.name) into the extension's Info.plist")
            }
            out += collector.findings
        }
        return out
    }

    static func summary(_ e: ExceptionDomain) -> String {
        "insecure HTTP \(e.allowsInsecureHTTPLoads?.value ?? false ? "YES" : "NO"), minimum \(e.minimumTLSVersion?.value ?? .atsDefault), forward secrecy \(e.requiresForwardSecrecy?.value ?? true ? "YES" : "NO"), subdomains \(e.coversSubdomains ? "YES" : "NO")"
    }

    /// Entries written differently that name one host (`münchen.de` and `xn--mnchen-3ya.de`): the resolver, like the
    /// device, uses the one written as the host is sent; the other is reported where it stands.
    func duplicateDomains(_ entries: [(key: ATSDomainKey, keyPath: PlistKeyPath)], _ out: inout FindingCollector) {
        // An absolute key (`example.com.`) matches other URLs than the same name without the dot: not a duplicate.
        struct Host: Hashable { let pattern: HostPattern, isAbsolute: Bool }
        var byHost: [Host: [(key: ATSDomainKey, keyPath: PlistKeyPath)]] = [:]
        for entry in entries {
            if let pattern = entry.key.pattern, !pattern.isAddress { byHost[Host(pattern: pattern, isAbsolute: entry.key.isAbsolute), default: []].append(entry) }
        }
        for (host, group) in byHost where group.count > 1 {
            let sent = host.pattern.name
            for entry in group where entry.key.isULabel {
                out.add(.duplicateDomain, entry.keyPath, domain: entry.key.written,
                        message: "\(entry.key.written) names the same host as \(sent), which is also listed; the device compares keys with the host as it is sent (\(sent)), so this entry is not used for it",
                        fix: "Keep one entry for the host, written as \(sent)")
            }
        }
    }

    /// Whether two entries name the same host: as written, or once normalised (`münchen.de`, `xn--mnchen-3ya.de`).
    static func sameHost(_ a: ATSDomainKey, _ b: ATSDomainKey) -> Bool {
        a.written == b.written || (a.pattern != nil && a.pattern == b.pattern)
    }

    static func suggestedHost(_ written: String) -> String {
        var h = written.lowercased().trimmingCharacters(in: .whitespaces)
        if let r = h.range(of: "://") { h = String(h[r.upperBound...]) }
        if let slash = h.firstIndex(of: "/") { h = String(h[..<slash]) }
        if h.hasPrefix("["), let close = h.firstIndex(of: "]") { return String(h[h.index(after: h.startIndex)..<close]) }
        if let colon = h.lastIndex(of: ":"), h.filter({ $0 == ":" }).count == 1 { h = String(h[..<colon]) }
        while h.hasPrefix("*.") || h.hasPrefix(".") { h.removeFirst(h.hasPrefix("*.") ? 2 : 1) }
        while h.hasSuffix(".") { h.removeLast() }
        while h.contains("..") { h = h.replacingOccurrences(of: "..", with: ".") }
        return h.replacingOccurrences(of: "*", with: "")
    }
}

import Foundation
