import ArgumentParser
import Foundation
import TransportTrust

/// `--ct` and `--ct-log-list`, shared by every command that evaluates a server's chain.
struct CTOptions: ParsableArguments {
    /// Read when `--ct-log-list` is not given, so that CI can point every command at a current list once.
    static let environmentVariable = "ATS_CT_LOG_LIST"

    @Option(name: .customLong("ct"),
            help: "Certificate Transparency: enforce (default: refuse what Apple refuses), report (say it, never refuse) or off.")
    var mode: CertificateTransparencyOptions.Mode = .enforce

    @Option(name: .customLong("ct-log-list"),
            help: "A CT log list in Apple's schema v5, instead of the bundled one (also $\(CTOptions.environmentVariable)). Used whatever its age, as trustd uses a caller's list.")
    var logList: String?

    func validate() throws {
        if mode == .off && logList != nil {
            throw ValidationError("--ct off checks no SCT, so --ct-log-list would not be read; drop one of them")
        }
    }

    /// The options, reading the log list named by the flag or the environment.
    func options(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CertificateTransparencyOptions {
        guard mode != .off else { return CertificateTransparencyOptions(mode: .off) }
        let named = logList.map { ($0, "--ct-log-list") } ?? environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : ($0, "$\(Self.environmentVariable)") }
        guard let (path, origin) = named else { return CertificateTransparencyOptions(mode: mode) }
        let bytes: [UInt8]
        do { bytes = Array(try InputFile.read(path)) } catch {
            throw InputError("\(origin): cannot read the CT log list '\(InputFile.source(path))': \(error.reason)")
        }
        do {
            return CertificateTransparencyOptions(mode: mode, logList: try CTLogList(json: bytes, source: .supplied(InputFile.source(path))))
        } catch {
            throw InputError("\(origin): \(error)")
        }
    }
}

extension CertificateTransparencyOptions.Mode: ExpressibleByArgument {}
