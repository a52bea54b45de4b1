import ArgumentParser
import Foundation
import TransportClient
import TransportTrust

/// `ats ct`: keep Apple's CT log list current, as a device does, and show the list in force.
struct CTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ct",
        abstract: "Keep Apple's Certificate Transparency log list current, and show the list in force.",
        discussion: """
            An iPhone refreshes its CT log list from Apple and stops enforcing CT when its list has not been confirmed \
            current for 60 days. 'ats ct update' does the same for this machine: it keeps the list in \
            $XDG_CACHE_HOME/swift-transport-security/ct (or ~/.cache/swift-transport-security/ct), and every command then \
            uses the newer of that list and the bundled one. --ct-log-list and $\(CTOptions.environmentVariable) still win.
            """,
        subcommands: [CTUpdateCommand.self, CTStatusCommand.self, CTCheckCommand.self]
    )
}

/// Where `ats ct` keeps the list: the user's cache, or `--cache-dir`.
struct CTCacheOption: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp(
        "The folder the list is kept in (default: $XDG_CACHE_HOME/swift-transport-security/ct, or ~/.cache/swift-transport-security/ct).",
        valueName: "folder"))
    var folder: String?

    func store(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CTLogListStore {
        if let folder { return CTLogListStore(folder: folder) }
        guard let store = CTLogListStore.userCache(environment: environment) else {
            throw InputError("no cache folder for the CT log list: neither XDG_CACHE_HOME nor HOME is an absolute path. Set one, or give --cache-dir")
        }
        return store
    }
}

struct CTUpdateCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Fetch Apple's current CT log list, check it, and keep it.",
        discussion: """
            By default the list is fetched from \(CTLogListStore.appleListAddress), the address Apple's devices use, under \
            the SSL policy and this machine's roots (SSL_CERT_FILE and SSL_CERT_DIR are honoured; --trust-store apple uses \
            Apple's). It is kept only if it is a list in Apple's schema v5 whose every log ID is its key's SHA-256, and no \
            older (by version) than the kept one. A failed update leaves the kept list as it was.
            Exit status: 0 kept; 1 the fetch failed or the list was refused or could not be written; 2 usage or input errors.
            """
    )

    @Option(help: ArgumentHelp("An https:// address or a file (- reads standard input) to take the list from, instead of Apple's address.",
                               valueName: "url-or-file"))
    var from: String?

    @OptionGroup var cache: CTCacheOption

    @OptionGroup(title: "Trust for the fetch") var anchorOptions: AnchorOptions

    @OptionGroup var resolveOptions: ResolveOptions

    @Option(help: "Seconds the fetch may take (default 30).")
    var timeout: Double = 30

    /// --json prints the kept list's status as JSON.
    @OptionGroup var report: ReportOptions
    var json: Bool { report.json }

    func validate() throws {
        if !(timeout > 0 && timeout <= 3600) { throw ValidationError("--timeout must be a number of seconds above 0 and at most 3600, not \(timeout)") }
        if let from, from.lowercased().hasPrefix("http://") {
            throw ValidationError("--from '\(from)' is plain http; the list decides which certificates are trusted, so fetch it over https")
        }
    }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        let store: CTLogListStore
        let source = from ?? CTLogListStore.appleListAddress
        do {
            store = try cache.store()
            let list: CTLogList
            if source.lowercased().hasPrefix("https://") {
                list = try await fetch(source, into: store, output: out)
            } else {
                let bytes: [UInt8]
                do { bytes = Array(try InputFile.read(source)) } catch {
                    throw InputError("--from: cannot read the CT log list '\(InputFile.source(source))': \(error.reason)")
                }
                list = try store.keep(json: bytes, source: InputFile.source(source), fetched: Date())
            }
            out.write(json ? CTStatusCommand.json(CTStatus(list: list, store: store, chosenBy: "cached", now: Date())) + "\n"
                           : "kept \(list.summary) in \(store.folder)\n")
            return 0
        } catch let error as CTLogListStoreError {
            out.error("ats ct update: \(error)\n")
            return 1
        } catch {
            out.error("ats ct update: \(error)\n")
            return 2
        }
    }

    private func fetch(_ address: String, into store: CTLogListStore, output out: Output) async throws -> CTLogList {
        let limit = Duration.milliseconds(Int64(timeout * 1000))
        var configuration = HTTPSClientConfiguration(anchors: try anchorOptions.trustAnchors(requireSystemRoots: true, warnings: out),
                                                     timeouts: Timeouts(connect: limit, handshake: limit, request: limit),
                                                     addressOverrides: resolveOptions.addressOverrides)
        configuration.maximumResponseBytes = CTLogListStore.maximumListBytes
        // The fetch is held to Certificate Transparency like any other, with the list in force now: Apple's server
        // carries SCTs, and a list that has gone out of date enforces nothing, so a stale device can still refresh.
        configuration.certificateTransparency = CertificateTransparencyOptions(logList: store.listInForce().list)
        let client = HTTPSClient(configuration: configuration)
        let result: Result<CTLogList, CTLogListStoreError>
        do { result = .success(try await store.refresh(using: client, from: address)) } catch { result = .failure(error) }
        await client.shutdown()
        return try result.get()
    }
}

/// The list in force and whether CT is enforced with it.
struct CTStatus: Encodable {
    var chosenBy: String
    var source: CTLogListReference.Origin
    var location: String?
    var version: String
    var confirmed: Date?
    var ageDays: Int?
    var enforced: Bool
    var enforcedUntil: Date?
    var cacheFolder: String?
    var problems: [String] = []

    init(list: CTLogList, store: CTLogListStore?, chosenBy: String, now: Date) {
        self.chosenBy = chosenBy
        source = list.reference.source
        location = list.reference.location
        version = list.version
        confirmed = list.date
        ageDays = list.age(at: now)
        enforced = list.isCurrent(at: now)
        enforcedUntil = list.date.map { $0.addingTimeInterval(Double(CTLogList.maximumAgeDays) * 86_400) }
        cacheFolder = store?.folder
    }
}

struct CTStatusCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print the CT log list in force: bundled, cached or given; its version, source and age; whether CT is enforced with it, and until when.",
        discussion: "Exit status: 0; 2 when the list named by --ct-log-list or $\(CTOptions.environmentVariable) cannot be used."
    )

    @OptionGroup var cache: CTCacheOption

    @Option(name: .customLong("ct-log-list"), help: "A list given as the other commands take it (also $\(CTOptions.environmentVariable)).")
    var logList: String?

    @OptionGroup var report: ReportOptions
    var json: Bool { report.json }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        let now = Date()
        do {
            let choice = try CTOptions.choose(given: logList, store: try? cache.store())
            var status = CTStatus(list: choice.list, store: try? cache.store(), chosenBy: choice.chosenBy, now: now)
            status.problems = choice.problems
            out.write(json ? Self.json(status) + "\n" : Self.text(status, list: choice.list, output: out))
            return 0
        } catch {
            out.error("ats ct status: \(error)\n")
            return 2
        }
    }

    static func json(_ status: CTStatus) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(status) else { return #"{"error":"internalError"}"# }
        return String(decoding: data, as: UTF8.self)
    }

    static func text(_ s: CTStatus, list: CTLogList, output out: Output) -> String {
        var lines = ["list in force: \(list.summary)", "chosen because: \(s.chosenBy)"]
        if let age = s.ageDays { lines.append("age: \(age) days") }
        if let until = s.enforcedUntil {
            lines.append(s.enforced ? out.green("CT enforced") + " until \(RFC3339.format(until)) (\(CTLogList.maximumAgeDays) days after the list was last confirmed current)"
                                    : out.yellow("CT not enforced") + " since \(RFC3339.format(until)): the list is more than \(CTLogList.maximumAgeDays) days old, as on a device that stopped checking in. Run 'ats ct update'")
        } else {
            lines.append(out.green("CT enforced") + " with a given list, whatever its age, as trustd uses a caller's list")
        }
        if let folder = s.cacheFolder { lines.append("cache: \(folder)") }
        lines += s.problems.map { "warning: \($0)" }
        return lines.joined(separator: "\n") + "\n"
    }
}

struct CTCheckCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a CT log list as 'ats ct update' checks it, without keeping it.",
        discussion: "Exit status: 0 the list passes; 2 it does not, or cannot be read."
    )

    @Argument(help: "The list (- reads standard input).")
    var file: String

    @OptionGroup var report: ReportOptions

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        do {
            let bytes: [UInt8]
            do { bytes = Array(try InputFile.read(file)) } catch {
                throw InputError("cannot read the CT log list '\(InputFile.source(file))': \(error.reason)")
            }
            let list = try CTLogListStore.check(json: bytes, source: InputFile.source(file))
            if report.json {
                out.write(CTCheckResult(source: InputFile.source(file), version: list.version, logs: list.logs.count).json + "\n")
            } else {
                out.write("\(InputFile.source(file)): version \(list.version), \(list.logs.count) logs, passes\n")
            }
            return 0
        } catch {
            out.error("ats ct check: \(error)\n")
            return 2
        }
    }
}

/// `ats ct check --json`: the list that passed. A list that fails is an input error (exit 2, the reason on standard error).
struct CTCheckResult: Encodable {
    var source: String
    var version: String
    var logs: Int
    var passes = true

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return #"{"error":"internalError"}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
