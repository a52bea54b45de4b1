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

    /// The options, with the list named by the flag or the environment, else the newer of the kept list (`ats ct
    /// update`) and the bundled one. A kept list that cannot be used is skipped, with a warning on `warnings`.
    func options(environment: [String: String] = ProcessInfo.processInfo.environment, warnings: Output? = nil) throws -> CertificateTransparencyOptions {
        guard mode != .off else { return CertificateTransparencyOptions(mode: .off) }
        let choice = try Self.choose(given: logList, environment: environment, store: CTLogListStore.userCache(environment: environment))
        if let warnings { for problem in choice.problems { warnings.error("warning: \(problem)\n") } }
        return CertificateTransparencyOptions(mode: mode, logList: choice.list)
    }

    /// The list in force and why it was chosen: the flag's, the environment's, or the newer of the kept and the
    /// bundled list.
    static func choose(given flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                       store: CTLogListStore?) throws -> (list: CTLogList, chosenBy: String, problems: [String]) {
        let named = flag.map { ($0, "--ct-log-list") } ?? environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : ($0, "$\(Self.environmentVariable)") }
        if let (path, origin) = named {
            let bytes: [UInt8]
            do { bytes = Array(try InputFile.read(path)) } catch {
                throw InputError("\(origin): cannot read the CT log list '\(InputFile.source(path))': \(error.reason)")
            }
            do {
                return (try CTLogList(json: bytes, source: .supplied(InputFile.source(path))), "given with \(origin)", [])
            } catch {
                throw InputError("\(origin): \(error)")
            }
        }
        let bundled: CTLogList
        do { bundled = try CTLogList.bundled() } catch { throw InputError("\(error)") }
        guard let store else { return (bundled, "no cache folder (neither XDG_CACHE_HOME nor HOME is set), so the bundled list", []) }
        let (inForce, problem) = store.listInForce(bundled: bundled)
        let problems = problem.map { ["\($0); the bundled list is used"] } ?? []
        guard let list = inForce else { return (bundled, "the bundled list", problems) }
        if list.reference.source == .cached {
            return (list, "the kept list (ats ct update) is at least as new as the bundled one", problems)
        }
        let kept = (try? store.metadata()) ?? nil
        return (list, kept == nil ? "nothing kept in the cache (run 'ats ct update'), so the bundled list"
                                  : "the bundled list is newer than the kept one", problems)
    }
}

extension CertificateTransparencyOptions.Mode: ExpressibleByArgument {}
