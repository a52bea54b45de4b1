import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Android Network Security Config: `<domain-config>` elements with `<domain includeSubdomains>` and a
/// `<pin-set expiration>` of `<pin digest="SHA-256">`. A domain-config without a pin-set inherits its parent's,
/// wherever it appears; one with none at all, or an empty one, is not pinned and is read as an exempt entry,
/// which shadows broader pinned ones as Android's most specific domain-config does.
package enum AndroidPinFormat: PinFileCodec {
    package static func read(_ bytes: [UInt8], source: String) throws(PinConfigurationError) -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning]) {
        // Foundation's XMLParser on Linux traps (SIGILL) on element names and processing instructions that are
        // not UTF-8, so such a file never reaches it.
        if let bad = firstInvalidUTF8(bytes) {
            let line = DocumentProblem.line(ofOffset: bad, in: bytes)
            throw PinConfigurationError(.malformedDocument, source: source, line: line, "byte \(bad) is not valid UTF-8",
                fix: "Save the file as UTF-8, as Android reads it")
        }
        // Foundation's XMLParser on Linux reads a processing instruction's data without checking for none, so `<?pi?>`
        // crashes it (found by the pins-android fuzz target).
        if let at = firstEmptyProcessingInstruction(bytes) {
            let line = DocumentProblem.line(ofOffset: at, in: bytes)
            throw PinConfigurationError(.malformedDocument, source: source, line: line,
                "a processing instruction ('<?') with no data, which Foundation's XML parser cannot read",
                fix: "Remove it: a Network Security Config needs none")
        }
        if let (at, problem, fix) = firstEntityProblem(bytes) {
            let line = DocumentProblem.line(ofOffset: at, in: bytes)
            throw PinConfigurationError(.malformedDocument, source: source, line: line, problem, fix: fix)
        }
        let delegate = Reader(source: source)
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = delegate
        let ok = parser.parse()
        if let error = delegate.error { throw error }
        guard ok else {
            let code = parser.parserError.map { ($0 as NSError).code }
            throw PinConfigurationError(.malformedDocument, source: source, line: parser.lineNumber,
                "the file is not well-formed XML at column \(parser.columnNumber): \(xmlProblem(code))",
                fix: "Fix the XML at that place; if the file was cut off, copy it again in full")
        }
        // Foundation's XMLParser on Linux reports success for a document that stops inside an element, which
        // would leave a half-read <pin-set> that reads as an exemption.
        if let unclosed = delegate.open.last {
            throw PinConfigurationError(.malformedDocument, source: source, line: parser.lineNumber,
                "the file ends at byte \(bytes.count) before <\(unclosed.name)> (opened on line \(unclosed.line)) is closed, so it is cut short",
                fix: "Copy the whole file again; every element needs its closing tag, down to </network-security-config>")
        }
        guard delegate.sawRoot else {
            throw PinConfigurationError(.malformedDocument, source: source, "the root element is not <network-security-config>",
                fix: "Put the <domain-config> elements inside <network-security-config>")
        }
        return (PinConfiguration(try delegate.hosts), delegate.warnings)
    }

    /// What went wrong, in words, for the parser error codes a hand-edited or cut-off file gives; never
    /// Foundation's "NSXMLParserErrorDomain error 73". The codes are libxml2's, which Foundation on Linux passes on;
    /// its `XMLParser.ErrorCode` cases do not carry the same numbers, so they are not used.
    static func xmlProblem(_ code: Int?) -> String {
        switch code {
        case 3?, 4?: return "there is no XML element in it"
        case 5?, 86?: return "there is more after the root element's closing tag"
        case 77?: return "the file ends in the middle of a tag, so it is cut short"
        case 73?: return "a tag is not closed with '>'"
        case 72?, 74?: return "a '<' is missing"
        case 76?, 85?: return "a closing tag does not match the element it closes"
        case 39?, 40?, 43?, 44?: return "an attribute value is not in matching quotes"
        case 41?, 75?: return "an attribute has no =\"value\""
        case 42?: return "an element has the same attribute twice"
        case 38?: return "an attribute value holds '<'; write &lt;"
        case 14?, 23?, 26?: return "an '&' does not start a known entity such as &amp;"
        case 9?: return "it holds a character XML does not allow"
        case 45?: return "a comment is not closed with '-->'"
        case 68?: return "a '<' is not followed by an element name"
        default: return "the XML is broken there"
        }
    }

    /// The offset of the first processing instruction with no data (`<?pi?>`, `<?pi ?>`, or one cut off), or nil.
    static func firstEmptyProcessingInstruction(_ bytes: [UInt8]) -> Int? {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        for i in bytes.indices.dropLast() where bytes[i] == UInt8(ascii: "<") && bytes[i + 1] == UInt8(ascii: "?") {
            var j = i + 2
            while j < bytes.count, !isSpace(bytes[j]), bytes[j] != UInt8(ascii: "?"), bytes[j] != 0 { j += 1 }
            while j < bytes.count, isSpace(bytes[j]) { j += 1 }
            if j >= bytes.count || bytes[j] == 0 || (bytes[j] == UInt8(ascii: "?") && bytes[j...].starts(with: [UInt8(ascii: "?"), UInt8(ascii: ">")])) {
                return i
            }
        }
        return nil
    }

    /// The first entity Foundation's XMLParser on Linux would misread, with why and the fix. It loads no external
    /// entity, and a reference to one drops the text after it; it also drops a declared internal entity's text, so
    /// `<domain>&www;example.com</domain>` reads as example.com. Only the five predefined entities and character
    /// references read as written. A declared name in a comment or CDATA is refused too: the scan stays linear.
    static func firstEntityProblem(_ bytes: [UInt8]) -> (offset: Int, problem: String, fix: String)? {
        let declaration = Array("<!ENTITY".utf8)
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        func isNameEnd(_ b: UInt8) -> Bool { isSpace(b) || b == UInt8(ascii: ">") || b == UInt8(ascii: ";") || b == UInt8(ascii: "&") || b == UInt8(ascii: "<") }
        func name(at start: Int) -> (name: [UInt8], end: Int) {
            var end = start
            while end < bytes.count, !isNameEnd(bytes[end]), end - start < 256 { end += 1 }
            return (Array(bytes[start..<end]), end)
        }
        var declared: Set<[UInt8]> = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "<"), bytes[i...].starts(with: declaration) {
                var j = i + declaration.count
                while j < bytes.count, isSpace(bytes[j]) { j += 1 }
                let parameter = j < bytes.count && bytes[j] == UInt8(ascii: "%")
                if parameter { j += 1; while j < bytes.count, isSpace(bytes[j]) { j += 1 } }
                let (entity, end) = name(at: j)
                var k = end
                while k < bytes.count, isSpace(bytes[k]) { k += 1 }
                if bytes[k...].starts(with: Array("SYSTEM".utf8)) || bytes[k...].starts(with: Array("PUBLIC".utf8)) {
                    let shown = NameDisplay.quoted(String(decoding: entity, as: UTF8.self))
                    return (i, "the DOCTYPE declares \(shown) as an external entity, which is never loaded, and a reference to it would drop the text after it",
                            "Write the entity's text where it is used, and remove the declaration")
                }
                if !parameter { declared.insert(entity) }
                i = end
            } else if bytes[i] == UInt8(ascii: "&"), !declared.isEmpty {
                let (entity, end) = name(at: i + 1)
                if end < bytes.count, bytes[end] == UInt8(ascii: ";"), declared.contains(entity) {
                    let shown = String(decoding: entity, as: UTF8.self)
                    return (i, "the entity &\(NameDisplay.escaped(shown)); is declared in the DOCTYPE, and Foundation's XML parser on Linux drops such an entity's text, so the element would be misread",
                            "Write the entity's text where it is used; only &amp; &lt; &gt; &quot; &apos; and character references are read")
                }
                i = max(end, i + 1)
            } else {
                i += 1
            }
        }
        return nil
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

    /// Reads the document as Android's `XmlConfigSource` does: elements are taken only where Android takes them
    /// (anything inside an unknown element is skipped), and pin sets are resolved after the whole document is read,
    /// so that a nested domain-config inherits its parent's pin set wherever the two appear.
    final class Reader: NSObject, XMLParserDelegate {
        struct Config {
            var parent: Int?
            var line: Int
            var domains: [(text: String, include: Bool, line: Int)] = []
            /// nil when the domain-config has no <pin-set> of its own.
            var pinSet: (pins: [Pin], expiration: Date?)?
        }

        /// Where an element sits; `ignored` is an element Android skips, with everything inside it.
        enum Element { case root, base, debug, domainConfig(Int), domain, pinSet(Int), pin(Int), trustAnchors(String), certificates, ignored }

        let source: String
        var configs: [Config] = []
        var path: [Element] = []
        /// Every element begun and not yet ended, with its line: what is left when the file stops early.
        var open: [(name: String, line: Int)] = []
        var seenDomains: Set<String> = []
        var warnings: [PinConfigurationWarning] = []
        var error: PinConfigurationError?
        var sawRoot = false
        var text = ""
        var include = false
        var digest = "SHA-256"
        var elementLine = 0

        init(source: String) { self.source = source }

        func fail(_ parser: XMLParser, _ e: PinConfigurationError, line: Int? = nil) {
            if error == nil { error = e.placed(in: source, line: line ?? parser.lineNumber) }
            parser.abortParsing()
        }

        /// The domain-configs in document order, each with the pin set it has or inherits; those with none, or an
        /// empty one, are exempt: Android's checkPins returns at once when there are no pins.
        var hosts: [PinnedHost] {
            get throws(PinConfigurationError) {
                var hosts: [PinnedHost] = []
                for c in configs {
                    var set = c.pinSet
                    var ancestor = c.parent
                    while set == nil, let i = ancestor {
                        set = configs[i].pinSet
                        ancestor = configs[i].parent
                    }
                    for d in c.domains {
                        let pattern: HostPattern
                        if d.text.contains("*") {
                            pattern = .literal(d.text, includeSubdomains: d.include)
                        } else {
                            do { pattern = try HostPattern(d.text, includeSubdomains: d.include) } catch { throw error.placed(in: source, line: d.line) }
                        }
                        if let set, !set.pins.isEmpty {
                            hosts.append(PinnedHost(pattern, PinSet(set.pins, scope: .any, expirationDate: set.expiration)))
                        } else {
                            hosts.append(.exempt(pattern))
                        }
                    }
                }
                return hosts
            }
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            text = ""
            elementLine = parser.lineNumber
            open.append((name, parser.lineNumber))
            let element: Element
            switch (path.last, name) {
            case (nil, "network-security-config"):
                sawRoot = true
                element = .root
            case (nil, _), (.ignored?, _):
                element = .ignored
            case (.root?, "base-config"): element = .base
            case (.root?, "debug-overrides"): element = .debug
            case (.root?, "domain-config"):
                configs.append(Config(parent: nil, line: parser.lineNumber))
                element = .domainConfig(configs.count - 1)
            case (.domainConfig(let parent)?, "domain-config"):
                configs.append(Config(parent: parent, line: parser.lineNumber))
                element = .domainConfig(configs.count - 1)
            case (.domainConfig?, "domain"):
                include = attributes["includeSubdomains"]?.lowercased() == "true"
                element = .domain
            case (.domainConfig(let i)?, "pin-set"):
                guard configs[i].pinSet == nil else {
                    return fail(parser, PinConfigurationError(.malformedDocument, "a <domain-config> has two <pin-set> elements, which Android refuses (\"Multiple pin-set elements not allowed\")",
                        fix: "Merge the pins into one <pin-set>"))
                }
                var expiration: Date?
                if let e = attributes["expiration"] {
                    guard let d = PinDates.parseDay(e) else {
                        return fail(parser, PinConfigurationError(.wrongType, "the pin-set expiration '\(e)' is not a yyyy-MM-dd date", fix: "Write it like expiration=\"2027-01-31\""))
                    }
                    expiration = d
                }
                configs[i].pinSet = ([], expiration)
                element = .pinSet(i)
            case (.base?, "pin-set"), (.debug?, "pin-set"):
                return fail(parser, PinConfigurationError(.malformedDocument,
                    "a <pin-set> in <\(path.last.map { if case .base = $0 { "base-config" } else { "debug-overrides" } } ?? "")>, which Android refuses: pins belong to a domain",
                    fix: "Move the <pin-set> into a <domain-config> with the domains it pins"))
            case (.pinSet(let i)?, "pin"):
                digest = attributes["digest"] ?? ""
                element = .pin(i)
            case (.base?, "trust-anchors"): element = .trustAnchors("base-config")
            case (.domainConfig?, "trust-anchors"): element = .trustAnchors("domain-config")
            case (.trustAnchors(let owner)?, "certificates"):
                if attributes["overridePins"]?.lowercased() == "true" {
                    let src = attributes["src"] ?? "?"
                    warnings.append(PinConfigurationWarning(.differsFromSource, source: source, line: parser.lineNumber,
                        "<certificates src=\"\(src)\" overridePins=\"true\"> in a \(owner) is not supported: Android skips the pin check for a chain that ends at those anchors, but they are not known here, so the pins are checked for every chain"))
                }
                element = .certificates
            default:
                element = .ignored
            }
            path.append(element)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            text = ""
            _ = open.popLast()
            guard let element = path.popLast() else { return }
            switch element {
            case .domain:
                guard case .domainConfig(let i)? = path.last else { return }
                let name = value.lowercased()
                guard seenDomains.insert(name).inserted else {
                    return fail(parser, PinConfigurationError(.invalidHost, "the domain \(value) appears twice, which Android refuses (\"\(name) has already been specified\")",
                        fix: "Keep one <domain> for it; a nested <domain-config> covers a subdomain"))
                }
                if value.contains("*") {
                    warnings.append(PinConfigurationWarning(.differsFromSource, source: source, line: elementLine,
                        "Android has no wildcards: it compares '\(NameDisplay.escaped(value))' with host names as written, so this domain pins no host; write the parent domain with includeSubdomains=\"true\""))
                }
                configs[i].domains.append((value, include, elementLine))
            case .pin(let i):
                guard digest.uppercased() == "SHA-256" else {
                    return fail(parser, PinConfigurationError(.malformedPin, "a <pin> has digest '\(digest)'; Android supports SHA-256 only",
                        fix: "Write <pin digest=\"SHA-256\">BASE64</pin>"))
                }
                do { configs[i].pinSet?.pins.append(try Pin(bareSHA256: value, system: "Android")) } catch { return fail(parser, error) }
            case .domainConfig(let i):
                guard !configs[i].domains.isEmpty else {
                    return fail(parser, PinConfigurationError(.missingKey, "a <domain-config> has no <domain>, which Android refuses",
                        fix: "Name the domains it applies to with <domain>example.com</domain>"), line: configs[i].line)
                }
            default:
                break
            }
        }
    }

    package static func write(_ configuration: PinConfiguration) -> (text: String, warnings: [PinConfigurationWarning]) {
        var w: [PinConfigurationWarning] = []
        var s = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<network-security-config>\n"
        for host in configuration.hosts {
            if host.isExempt {
                // A domain-config without a pin-set is not pinned, whatever a broader one pins.
                if host.pattern.kind == .oneLabel {
                    w.append(PinConfigurationWarning(.lossyConversion, "Android has no one-label wildcard; the exemption of \(host.pattern) was written for \(host.pattern.name) with includeSubdomains"))
                }
                let include = host.pattern.coversSubdomains ? "true" : "false"
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
            let include = host.pattern.coversSubdomains ? "true" : "false"
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
