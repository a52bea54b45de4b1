import Foundation
import Plot

/// One self-contained page: inline CSS, no script, no font or image from anywhere, readable with JavaScript off and
/// printable. Every value from the input reaches the page as a text node, which Plot escapes; attributes hold only
/// constants of this module (class names, Apple's documentation addresses), since Plot does not escape attributes.
enum HTMLPage {
    static func render(title: String, subtitle: String, _ body: [Node<HTML.BodyContext>]) -> String {
        let html = HTML(
            .lang(.english),
            .head(
                .meta(.charset(.utf8)),
                // Nothing may load or run, whatever the page holds: no script, no request; inline CSS only.
                .meta(.attribute(named: "http-equiv", value: "Content-Security-Policy"),
                      .attribute(named: "content", value: "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")),
                .meta(.name("viewport"), .content("width=device-width, initial-scale=1")),
                .title(title),
                .style(css)
            ),
            .body(
                .header(.h1(.input(title)), .p(.class("meta"), .input(subtitle))),
                .main(.group(body)),
                .footer(.p(.text("Made by ats (swift-transport-security) on \(RFC3339Text.now()). Self-contained: no script, no external resource.")))
            )
        )
        return html.render(indentedBy: .spaces(1))
    }

    /// A table of counts, one column per label.
    static func counts(_ pairs: [(label: String, count: Int, style: String)]) -> Node<HTML.BodyContext> {
        .table(.class("summary"),
               .tr(.forEach(pairs) { .th(.class($0.style), .input($0.label)) }),
               .tr(.forEach(pairs) { .td(.class($0.style), .input(String($0.count))) }))
    }

    /// A severity or result badge; `style` is one of the CSS classes below.
    static func badge(_ text: String, style: String) -> Node<HTML.BodyContext> {
        .span(.class("badge \(style)"), .input(text))
    }

    /// Text that may be long or hold no spaces (a key path, a hash), wrapped anywhere.
    static func code(_ text: String) -> Node<HTML.BodyContext> { .code(.input(text)) }

    static let css = """
        body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em; color: #1d1d1f; }
        h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #ddd; }
        h3 { font-size: 1.05em; margin-top: 1.2em; }
        .meta, footer { color: #6e6e73; } footer { margin-top: 3em; font-size: 0.85em; }
        table { border-collapse: collapse; width: 100%; margin: 0.6em 0; table-layout: fixed; }
        th, td { border: 1px solid #d2d2d7; padding: 4px 8px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
        th { background: #f5f5f7; }
        table.summary { width: auto; table-layout: auto; } table.summary td { font-size: 1.3em; text-align: center; }
        code, pre { font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; overflow-wrap: anywhere; white-space: pre-wrap; }
        pre { background: #f5f5f7; padding: 8px; border: 1px solid #d2d2d7; }
        .badge { display: inline-block; padding: 0 6px; border-radius: 4px; font-weight: 600; font-size: 0.85em; }
        .high, .fail { background: #ffd7d5; color: #9b1c13; } .medium { background: #ffecc2; color: #7a4b00; }
        .low { background: #dbe9ff; color: #1d4a8f; } .info, .na { background: #ececf0; color: #3a3a3c; }
        .pass { background: #d6f5dc; color: #11622a; }
        ul.chain, ul.chain ul { list-style: none; padding-left: 1.4em; } ul.chain li { margin: 0.3em 0; }
        .failing { border-left: 4px solid #d70015; padding-left: 6px; } .rule { color: #9b1c13; }
        @media print { body { margin: 0.5cm; } a { color: inherit; } }
        """
}

/// Times for the footer and the tables, in one form.
enum RFC3339Text {
    static func now() -> String { format(Date()) }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

extension Node {
    /// Input shown exactly as written. Plot escapes `<` and `>` but keeps `&…;` as a character reference, so an input
    /// `&#60;` would show as `<`: its `&` is written as `&amp;` first, which Plot then keeps as it is.
    static func input(_ text: String) -> Node { .text(text.replacingOccurrences(of: "&", with: "&amp;")) }
}
