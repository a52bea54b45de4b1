/// The one place `ats` makes ANSI colour. Whether it is on is decided once per stream by
/// ``Output/usesColor(environment:isTerminal:)``: off under `NO_COLOR`, `TERM=dumb`, or when the stream is no terminal.
package struct Palette: Sendable {
    package let enabled: Bool

    package init(enabled: Bool) { self.enabled = enabled }

    func paint(_ s: String, _ code: String) -> String { enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    func green(_ s: String) -> String { paint(s, "1;32") }
    func red(_ s: String) -> String { paint(s, "1;31") }
    func yellow(_ s: String) -> String { paint(s, "1;33") }
    func dim(_ s: String) -> String { paint(s, "2") }
}
