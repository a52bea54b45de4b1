import ArgumentParser
import AppTransportSecurity
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

    /// What these options pin for one host: a pattern and a set, and, when the `--pin` hashes cannot join a pin
    /// file's set without being demoted (it is report-only or expires), those hashes as a set of their own.
    struct Pinning {
        var pattern: HostPattern?
        var pinSet: PinSet
        /// `--pin` hashes checked on their own, always enforced, never expiring.
        var commandLine: PinSet?
    }

    /// What these options pin for `host`, or nil when they pin nothing for it (no pins given, or a pin file that
    /// exempts the host or does not cover it, which is said on standard error): the chain is then validated only,
    /// as ATS, TrustKit, OkHttp and Android treat a host their configuration does not pin.
    ///
    /// A pin file's entry for the host supplies the pattern, enforcement, expiry and report URIs. `--pin` hashes
    /// join an enforced entry without an expiration date (any pin passes); otherwise they form their own enforced
    /// set, so that they are never demoted to report-only or expire with the file's pins. The whole pin file is
    /// validated first under its own system's rules, as that system would at start-up: an error refuses it, and
    /// warnings (an expired set, a legacy pin) are printed. A legacy `sha1/` `--pin` is accepted with a warning.
    /// - Parameter now: the time an expiration date is judged against.
    func pinning(for host: String?, now: Date = Date(), output out: Output) throws -> Pinning? {
        if isEmpty { return nil }
        var commandLine = PinSet()
        var pattern: HostPattern?
        if let host { pattern = try? HostPattern(host) }
        for text in pins {
            let pin: Pin
            do { pin = try Pin(parsing: text) } catch { throw InputError("--pin: \(error)") }
            if pin.isLegacySHA1 {
                out.error("warning: --pin \(pin) is a legacy SHA-1 pin; replace it with the sha256/ pin of the same key (`ats pins CERT.pem` prints it)\n")
            }
            commandLine[pinScope].append(pin)
        }
        guard let pinFile else { return Pinning(pattern: pattern, pinSet: commandLine) }
        let source = InputFile.source(pinFile)
        let (config, warnings) = try PinConfigurationFormat.read(path: pinFile)
        let checks = try config.validate(now: now, source: source)
        for w in warnings + checks { out.error("\(w)\n") }
        let entry: PinnedHost?
        if let host { entry = config.entry(for: host) } else { entry = config.hosts.count == 1 ? config.hosts.first : nil }
        let rest = commandLine.allPins.isEmpty ? "its chain is validated only" : "only the --pin pins are checked"
        guard let entry else {
            guard let host else {
                throw InputError("\(source) pins \(config.hosts.count) hosts (\(Self.patterns(config))); give --host to choose one")
            }
            // Every system leaves a host its configuration does not list unpinned: chain validation only.
            out.error("warning: \(source) pins nothing for \(host): none of its patterns (\(Self.patterns(config))) covers it, so \(rest)\n")
            return commandLine.allPins.isEmpty ? nil : Pinning(pattern: pattern, pinSet: commandLine)
        }
        if entry.isExempt {
            // TrustKit's excluded subdomain, Android's domain-config without pins: covered, and not pinned.
            out.error("note: \(source) exempts \(host ?? entry.pattern.name) from pinning (\(entry.pattern)), so \(rest)\n")
            return commandLine.allPins.isEmpty ? nil : Pinning(pattern: pattern, pinSet: commandLine)
        }
        let file = entry.pinSet
        if commandLine.allPins.isEmpty { return Pinning(pattern: entry.pattern, pinSet: file) }
        guard file.enforcePinning && file.expirationDate == nil else {
            return Pinning(pattern: entry.pattern, pinSet: file, commandLine: commandLine)
        }
        var merged = file
        for scope in PinScope.allCases { merged[scope] += commandLine[scope] }
        return Pinning(pattern: entry.pattern, pinSet: merged)
    }

    /// The patterns of `config` for a message, at most `limit` of them: a pin file can hold thousands.
    static func patterns(_ config: PinConfiguration, limit: Int = 8) -> String {
        let shown = config.hosts.prefix(limit).map(\.pattern.description).joined(separator: ", ")
        return config.hosts.count > limit ? "\(shown) and \(config.hosts.count - limit) more" : shown
    }

    /// A pin-set evaluator that runs `validation` first, or nil when the options pin nothing for `host`. When the
    /// `--pin` hashes are a set of their own, it is checked between validation and the pin file's set.
    func evaluator(for host: String?, now: Date = Date(), validation: any ServerTrustEvaluating, output out: Output) throws -> PinSetEvaluator? {
        guard let pinning = try pinning(for: host, now: now, output: out) else { return nil }
        let first: any ServerTrustEvaluating = pinning.commandLine.map { PinSetEvaluator(pinSet: $0, validation: validation) } ?? validation
        return pinning.pattern.map { PinSetEvaluator(PinnedHost($0, pinning.pinSet), validation: first) }
            ?? PinSetEvaluator(pinSet: pinning.pinSet, validation: first)
    }
}

extension PinScope: ExpressibleByArgument {}
