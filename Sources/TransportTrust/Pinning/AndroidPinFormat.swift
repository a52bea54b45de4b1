import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Android Network Security Config: `<domain-config>` elements with `<domain includeSubdomains>` and a
/// `<pin-set expiration>` of `<pin digest="SHA-256">`. Nested domain-configs inherit their parent's pin-set.
enum AndroidPinFormat {
    static func read(_ bytes: [UInt8], source: String) throws(PinConfigurationError) -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning]) {
        // Foundation's XMLParser on Linux traps (SIGILL) on element names and processing instructions that are
        // not UTF-8, so such a file never reaches it.
        if let bad = firstInvalidUTF8(bytes) {
            let line = bytes[..<bad].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            throw PinConfigurationError(.malformedDocument, source: source, line: line, "byte \(bad) is not valid UTF-8",
                fix: "Save the file as UTF-8, as Android reads it")
        }
        let delegate = Reader(source: source)
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = delegate
        let ok = parser.parse()
        if let error = delegate.error { throw error }
        guard ok else {
            throw PinConfigurationError(.malformedDocument, source: source, line: parser.lineNumber,
                "the file is not well-formed XML (\(parser.parserError.map { ($0 as NSError).localizedDescription } ?? "parse error"))",
                fix: "Check the XML around that line")
        }
        guard delegate.sawRoot else {
            throw PinConfigurationError(.malformedDocument, source: source, "the root element is not <network-security-config>",
                fix: "Put the <domain-config> elements inside <network-security-config>")
        }
        return (PinConfiguration(delegate.hosts, rules: .android), delegate.warnings)
    }

    /// The offset of the first byte that does not begin a valid UTF-8 sequence, or nil when all of them do.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var decoder = UTF8()
        var input = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&input) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    final class Reader: NSObject, XMLParserDelegate {
        struct Config {
            var domains: [(text: String, include: Bool, line: Int)] = []
            var pins: [Pin] = []
            var hasPinSet = false
            var expiration: Date?
        }

        let source: String
        var stack: [Config] = []
        var hosts: [PinnedHost] = []
        var warnings: [PinConfigurationWarning] = []
        var error: PinConfigurationError?
        var sawRoot = false
        var text = ""
        var include = false
        var digest = "SHA-256"
        var elementLine = 0

        init(source: String) { self.source = source }

        func fail(_ parser: XMLParser, _ e: PinConfigurationError) {
            if error == nil { error = e.placed(in: source, line: parser.lineNumber) }
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            text = ""
            elementLine = parser.lineNumber
            switch name {
            case "network-security-config": sawRoot = true
            case "domain-config":
                var c = Config()
                if let parent = stack.last { c.pins = parent.pins; c.hasPinSet = parent.hasPinSet; c.expiration = parent.expiration }
                stack.append(c)
            case "domain":
                include = attributes["includeSubdomains"] == "true"
            case "pin-set":
                guard !stack.isEmpty else { return }
                stack[stack.count - 1].pins = []
                stack[stack.count - 1].hasPinSet = true
                stack[stack.count - 1].expiration = nil
                if let e = attributes["expiration"] {
                    guard let d = PinDates.parseDay(e) else {
                        return fail(parser, PinConfigurationError(.wrongType, "the pin-set expiration '\(e)' is not a yyyy-MM-dd date", fix: "Write it like expiration=\"2027-01-31\""))
                    }
                    stack[stack.count - 1].expiration = d
                }
            case "pin":
                digest = attributes["digest"] ?? ""
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch name {
            case "domain":
                guard !stack.isEmpty else { return }
                stack[stack.count - 1].domains.append((value, include, elementLine))
            case "pin":
                guard !stack.isEmpty else { return }
                guard digest.uppercased() == "SHA-256" else {
                    return fail(parser, PinConfigurationError(.malformedPin, "a <pin> has digest '\(digest)'; Android supports SHA-256 only",
                        fix: "Write <pin digest=\"SHA-256\">BASE64</pin>"))
                }
                do { stack[stack.count - 1].pins.append(try Pin(parsing: value)) } catch { return fail(parser, error) }
            case "domain-config":
                guard let c = stack.popLast() else { return }
                guard c.hasPinSet else { return }
                for d in c.domains {
                    do {
                        let pattern = try HostPattern(d.text, includeSubdomains: d.include)
                        hosts.append(PinnedHost(pattern, PinSet(c.pins, scope: .any, expirationDate: c.expiration)))
                    } catch { return fail(parser, error.placed(in: source, line: d.line)) }
                }
            default: break
            }
            text = ""
        }
    }

    static func write(_ configuration: PinConfiguration) -> (text: String, warnings: [PinConfigurationWarning]) {
        var w: [PinConfigurationWarning] = []
        var s = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<network-security-config>\n"
        for host in configuration.hosts {
            if host.isExempt {
                // A domain-config without a pin-set is not pinned, whatever a broader one pins.
                if host.pattern.kind == .oneLabel {
                    w.append(PinConfigurationWarning(.lossyConversion, "Android has no one-label wildcard; the exemption of \(host.pattern) was written for \(host.pattern.name) with includeSubdomains"))
                }
                let include = host.pattern.kind != .exact ? "true" : "false"
                s += "    <domain-config>\n        <domain includeSubdomains=\"\(include)\">\(PlistPinFormats.escape(host.pattern.name))</domain>\n    </domain-config>\n"
                continue
            }
            if host.pattern.kind == .oneLabel {
                w.append(PinConfigurationWarning(.lossyConversion, "Android has no one-label wildcard; \(host.pattern) was written as \(host.pattern.name) with includeSubdomains"))
            }
            if !host.pinSet.caPins.isEmpty || !host.pinSet.leafPins.isEmpty {
                w.append(PinConfigurationWarning(.lossyConversion, "Android pins match any certificate; the CA and leaf scopes of \(host.pattern) were merged"))
            }
            if !host.pinSet.enforcePinning { w.append(PinConfigurationWarning(.lossyConversion, "Android always enforces pins; the report-only set for \(host.pattern) will be enforced")) }
            let include = host.pattern.kind != .exact ? "true" : "false"
            s += "    <domain-config>\n        <domain includeSubdomains=\"\(include)\">\(PlistPinFormats.escape(host.pattern.name))</domain>\n"
            s += "        <pin-set" + (host.pinSet.expirationDate.map { " expiration=\"\(RFC3339.day($0))\"" } ?? "") + ">\n"
            for h in PlistPinFormats.hashes(host.pinSet.allPins, host: host, format: "Android", warnings: &w) {
                s += "            <pin digest=\"SHA-256\">\(h)</pin>\n"
            }
            s += "        </pin-set>\n    </domain-config>\n"
        }
        s += "</network-security-config>\n"
        return (s, w)
    }
}
