import ArgumentParser

/// `--resolve HOST:ADDRESS`, shared by the commands that connect.
struct ResolveOptions: ParsableArguments {
    @Option(name: .customLong("resolve"), help: "HOST:ADDRESS, connect to ADDRESS for HOST (like curl). Repeatable.")
    var entries: [String] = []

    func validate() throws {
        for r in entries where r.split(separator: ":", maxSplits: 1).count != 2 { throw ValidationError("--resolve takes HOST:ADDRESS, not '\(r)'") }
    }

    /// Lower-cased host → address, for `HTTPSClientConfiguration.addressOverrides`.
    var addressOverrides: [String: String] {
        var overrides: [String: String] = [:]
        for r in entries {
            let parts = r.split(separator: ":", maxSplits: 1).map(String.init)
            overrides[parts[0].lowercased()] = parts[1]
        }
        return overrides
    }
}
