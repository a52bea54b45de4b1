/// `arguments` for `ats fetch` or `ats diagnose` with time limits long enough for a loaded test run: the whole suite
/// shares two cores, and a handshake's tasks can wait for seconds behind other tests' work (under ThreadSanitizer,
/// past `diagnose`'s 10 s default). Arguments that set a limit themselves (the tests about limits) are left as they are.
public func withGenerousTimeLimits(_ arguments: [String]) -> [String] {
    guard !arguments.contains(where: { $0.hasPrefix("--timeout") || $0.hasPrefix("--connect-timeout") }) else { return arguments }
    switch arguments.first {
    case "fetch": return arguments + ["--timeout", "120", "--connect-timeout", "60"]
    case "diagnose": return arguments + ["--timeout", "120"]
    default: return arguments
    }
}
