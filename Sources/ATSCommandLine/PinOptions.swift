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
    var pinScope: PinScope?

    var isEmpty: Bool { pins.isEmpty && pinFile == nil }

    func validate() throws {
        // A scope with nothing to scope would read as a check that is not made.
        if pinScope != nil && pins.isEmpty {
            throw ValidationError("--pin-scope says where --pin hashes must match, but no --pin is given; add --pin HASH or drop --pin-scope (a --pin-file carries its own scopes)")
        }
    }

    /// The pin sources these options give: the pin file, read and validated under its own system's rules as that
    /// system would at start-up (an error refuses it; warnings are printed), and the `--pin` hashes. A legacy
    /// `sha1/` `--pin` is accepted with a warning.
    /// - Parameter now: the time an expiration date is judged against.
    func sources(now: Date = Date(), output out: Output) throws -> PinSources {
        var direct = PinSet()
        for text in pins {
            let pin: Pin
            do { pin = try Pin(parsing: text) } catch { throw InputError("--pin: \(error)") }
            if pin.isLegacySHA1 {
                out.error("warning: --pin \(pin) is a legacy SHA-1 pin; replace it with the sha256/ pin of the same key (`ats pins CERT.pem` prints it)\n")
            }
            direct[pinScope ?? .any].append(pin)
        }
        guard let pinFile else { return PinSources(pins: direct) }
        let source = InputFile.source(pinFile)
        let (config, warnings) = try PinConfigurationFormat.read(path: pinFile)
        let checks = try config.validate(now: now, source: source)
        for w in warnings + checks { out.error("\(w)\n") }
        return PinSources(configuration: config, configurationSource: source, pins: direct)
    }

    /// A pin-set evaluator that runs `validation` first, or nil when the options pin nothing for `host` (no pins
    /// given, or a pin file that exempts the host or does not cover it, which is said on standard error).
    /// - Parameter read: the sources already read, so that a file is read (and its warnings printed) once.
    func evaluator(for host: String?, now: Date = Date(), sources read: PinSources? = nil, validation: any ServerTrustEvaluating,
                   output out: Output) throws -> PinSetEvaluator? {
        if isEmpty { return nil }
        var peer: PeerName?
        if let host {
            do { peer = try PeerName(host) } catch { throw InputError("--host: '\(host)' is not a host name or address: \(error)") }
        }
        return try evaluator(for: peer, now: now, sources: read, validation: validation, output: out)
    }

    /// ``evaluator(for:now:sources:validation:output:)-(String?,_,_,_,_)`` for a host already parsed (a URL's).
    func evaluator(for peer: PeerName?, now: Date = Date(), sources read: PinSources? = nil, validation: any ServerTrustEvaluating,
                   output out: Output) throws -> PinSetEvaluator? {
        if isEmpty { return nil }
        let sources = try read ?? sources(now: now, output: out)
        let result: (evaluator: PinSetEvaluator?, notices: [PinSources.Notice])
        do {
            result = try sources.evaluator(for: peer, validation: validation)
        } catch {
            guard error.code == .invalidHost, peer == nil else { throw error }
            throw InputError("\(sources.configurationSource) \(error.problem); give --host to choose one")
        }
        let (evaluator, notices) = result
        for notice in notices { out.error("\(notice)\n") }
        return evaluator
    }

    /// Without --host, the host that the pin file's entry names, so that the leaf's names are checked for it as
    /// TrustKit and Android check the connection's host before its pins; nil when no entry names one host (only
    /// --pin, an exemption, or a pattern), which is said.
    func impliedHost(by evaluator: PinSetEvaluator?, host: String?, output out: Output) -> PeerName? {
        guard host == nil, let evaluator, !evaluator.unnamed, !evaluator.pinnedHost.isExempt else { return nil }
        let pattern = evaluator.pinnedHost.pattern
        guard pattern.kind == .exact, let peer = try? PeerName(pattern.name) else {
            out.error("warning: no --host: the pins of \(pattern) are checked but no host name is, where TrustKit and Android check the connection's host first; give --host\n")
            return nil
        }
        out.error("note: no --host: the names are checked for \(pattern.name), the host the pin file pins, as TrustKit and Android check it before its pins\n")
        return peer
    }
}

extension PinScope: ExpressibleByArgument {}
