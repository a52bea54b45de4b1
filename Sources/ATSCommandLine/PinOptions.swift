import ArgumentParser
import Foundation
import TransportTrust

/// `--pin`, `--pin-file` and `--pin-scope`, shared by every command that checks pins.
struct PinOptions: ParsableArguments {
    @Option(name: .customLong("pin"), help: "An SPKI pin (sha256/BASE64 or BASE64) the chain must contain. Repeatable.")
    var pins: [String] = []

    @Option(name: .customLong("pin-file"), help: "A pin configuration: Info.plist NSPinnedDomains, TrustKit plist/JSON, OkHttp lines or Android XML.")
    var pinFile: String?

    @Option(name: .customLong("pin-scope"), help: "Where --pin hashes must match: any, ca or leaf (default any).")
    var pinScope: PinScope = .any

    var isEmpty: Bool { pins.isEmpty && pinFile == nil }

    /// The pinned host these options describe for `host`, or nil when they pin nothing for it (no pins given, or a
    /// pin file that exempts the host or does not cover it, which is said on standard error): the chain is then
    /// validated only, as ATS, TrustKit, OkHttp and Android treat a host their configuration does not pin.
    /// A pin file's entry for the host supplies the pattern, enforcement, expiry and report URIs; `--pin` hashes are
    /// added to it.
    /// The whole pin file is validated first under its own system's rules, as that system would at start-up: an
    /// error refuses it, and warnings (an expired set, a legacy pin) are printed.
    /// - Parameter now: the time an expiration date is judged against.
    func pinnedHost(for host: String?, now: Date = Date(), output out: Output) throws -> (pattern: HostPattern?, pinSet: PinSet)? {
        if isEmpty { return nil }
        var pinSet = PinSet()
        var pattern: HostPattern?
        if let host { pattern = try? HostPattern(host) }
        for text in pins {
            do { pinSet[pinScope].append(try Pin(parsing: text)) } catch { throw InputError("--pin: \(error)") }
        }
        if let pinFile {
            let source = InputFile.source(pinFile)
            let (config, warnings) = try PinConfigurationFormat.read(path: pinFile)
            let checks = try config.validate(now: now, source: source)
            for w in warnings + checks { out.error("\(w)\n") }
            let entry: PinnedHost?
            if let host { entry = config.entry(for: host) } else { entry = config.hosts.count == 1 ? config.hosts.first : nil }
            let rest = pinSet.allPins.isEmpty ? "its chain is validated only" : "only the --pin pins are checked"
            guard let entry else {
                guard let host else {
                    throw InputError("\(source) pins \(config.hosts.count) hosts (\(Self.patterns(config))); give --host to choose one")
                }
                // Every system leaves a host its configuration does not list unpinned: chain validation only.
                out.error("warning: \(source) pins nothing for \(host): none of its patterns (\(Self.patterns(config))) covers it, so \(rest)\n")
                return pinSet.allPins.isEmpty ? nil : (pattern, pinSet)
            }
            if entry.isExempt {
                // TrustKit's excluded subdomain, Android's domain-config without pins: covered, and not pinned.
                out.error("note: \(source) exempts \(host ?? entry.pattern.name) from pinning (\(entry.pattern)), so \(rest)\n")
                return pinSet.allPins.isEmpty ? nil : (pattern, pinSet)
            }
            pattern = entry.pattern
            pinSet.pins += entry.pinSet.pins
            pinSet.caPins += entry.pinSet.caPins
            pinSet.leafPins += entry.pinSet.leafPins
            pinSet.enforcePinning = entry.pinSet.enforcePinning
            pinSet.expirationDate = entry.pinSet.expirationDate
            pinSet.reportURIs = entry.pinSet.reportURIs
        }
        return (pattern, pinSet)
    }

    /// The patterns of `config` for a message, at most `limit` of them: a pin file can hold thousands.
    static func patterns(_ config: PinConfiguration, limit: Int = 8) -> String {
        let shown = config.hosts.prefix(limit).map(\.pattern.description).joined(separator: ", ")
        return config.hosts.count > limit ? "\(shown) and \(config.hosts.count - limit) more" : shown
    }

    /// A pin-set evaluator that runs `validation` first, or nil when the options pin nothing for `host`.
    func evaluator(for host: String?, now: Date = Date(), validation: any ServerTrustEvaluating, output out: Output) throws -> PinSetEvaluator? {
        guard let (pattern, pinSet) = try pinnedHost(for: host, now: now, output: out) else { return nil }
        return pattern.map { PinSetEvaluator(PinnedHost($0, pinSet), validation: validation) }
            ?? PinSetEvaluator(pinSet: pinSet, validation: validation)
    }
}

extension PinScope: ExpressibleByArgument {}
