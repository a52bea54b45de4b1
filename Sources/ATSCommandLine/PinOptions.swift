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
    /// pin file that exempts the host): the chain is then validated only.
    /// A pin file's entry for the host supplies the pattern, enforcement and expiry; `--pin` hashes are added to it.
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
            let (config, warnings) = try PinConfigurationFormat.read(path: pinFile)
            let checks = try config.validate(now: now, source: InputFile.source(pinFile))
            for w in warnings + checks { out.error("\(w)\n") }
            let entry: PinnedHost?
            if let host { entry = config.entry(for: host) } else { entry = config.hosts.count == 1 ? config.hosts.first : nil }
            guard let entry else {
                if host == nil { throw InputError("\(pinFile) pins \(config.hosts.count) hosts; give --host to choose one") }
                throw InputError("\(pinFile) has no pins for \(host ?? ""); its patterns are: \(config.hosts.map(\.pattern.description).joined(separator: ", "))")
            }
            if entry.isExempt {
                // TrustKit's excluded subdomain, Android's domain-config without pins: covered, and not pinned.
                out.error("note: \(InputFile.source(pinFile)) exempts \(host ?? entry.pattern.name) from pinning (\(entry.pattern)); its chain is validated only\n")
                return pinSet.allPins.isEmpty ? nil : (pattern, pinSet)
            }
            pattern = entry.pattern
            pinSet.pins += entry.pinSet.pins
            pinSet.caPins += entry.pinSet.caPins
            pinSet.leafPins += entry.pinSet.leafPins
            pinSet.enforcePinning = entry.pinSet.enforcePinning
            pinSet.expirationDate = entry.pinSet.expirationDate
        }
        return (pattern, pinSet)
    }

    /// A pin-set evaluator that runs `validation` first, or nil when the options pin nothing for `host`.
    func evaluator(for host: String?, now: Date = Date(), validation: any ServerTrustEvaluating, output out: Output) throws -> PinSetEvaluator? {
        guard let (pattern, pinSet) = try pinnedHost(for: host, now: now, output: out) else { return nil }
        return pattern.map { PinSetEvaluator(PinnedHost($0, pinSet), validation: validation) }
            ?? PinSetEvaluator(pinSet: pinSet, validation: validation)
    }
}

extension PinScope: ExpressibleByArgument {}
