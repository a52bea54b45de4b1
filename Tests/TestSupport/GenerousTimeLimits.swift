/// `arguments` for `ats fetch` with time limits long enough for a loaded test run: the whole suite shares two cores,
/// and a handshake's tasks can wait for seconds behind other tests' work. Arguments that set a limit themselves (the
/// tests about limits) are left as they are.
public func withGenerousTimeLimits(_ arguments: [String]) -> [String] {
    guard arguments.first == "fetch",
          !arguments.contains(where: { $0.hasPrefix("--timeout") || $0.hasPrefix("--connect-timeout") }) else { return arguments }
    return arguments + ["--timeout", "120", "--connect-timeout", "60"]
}
