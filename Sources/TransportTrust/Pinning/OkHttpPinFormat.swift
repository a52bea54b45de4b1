import Foundation

/// OkHttp `CertificatePinner` pins as text: one `pattern sha256/…` per line (more pins may follow on the line,
/// separated by spaces or commas). `#`, and `//` at the start or after a space, start comments. As in OkHttp, every
/// pattern that matches a host applies (`PinMatching.everyMatch`).
package enum OkHttpPinFormat: PinFileCodec {
    package static func read(_ bytes: [UInt8], source: String) throws(PinConfigurationError) -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning]) {
        var order: [HostPattern] = []
        var pins: [HostPattern: [Pin]] = [:]
        var warnings: [PinConfigurationWarning] = []
        // A binary file is not guessed at line by line: its first "line" would be echoed as a host pattern.
        if let bad = [AndroidPinFormat.firstInvalidUTF8(bytes), bytes.firstIndex(of: 0)].compactMap({ $0 }).min() {
            let line = DocumentProblem.line(ofOffset: bad, in: bytes)
            throw PinConfigurationError(.malformedDocument, source: source, line: line,
                "it is not a text file: byte \(bad) is \(bytes[bad] == 0 ? "NUL" : "not UTF-8 text")",
                fix: "Give a pin file: an Info.plist, TrustKit plist or JSON, OkHttp lines or Android XML")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        for (n, raw) in text.lines.enumerated() {
            var line = Substring(raw)
            if let r = line.range(of: "#") { line = line[..<r.lowerBound] }
            // `//` starts a comment only at the start or after a space: base64 pins contain slashes.
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
            for marker in [" //", "\t//"] { if let r = line.range(of: marker) { line = line[..<r.lowerBound] } }
            let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == "\r" })
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"'")) }
            guard let first = tokens.first else { continue }
            guard tokens.count >= 2 else {
                throw PinConfigurationError(.malformedPin, source: source, line: n + 1, "\(NameDisplay.quoted(first)) has no pin after it",
                    fix: "Write one host pattern and its pins per line, like: **.example.com sha256/AAAA…=")
            }
            let pattern: HostPattern
            do { pattern = try HostPattern(first) } catch { throw error.placed(in: source, line: n + 1) }
            for token in tokens.dropFirst() {
                // OkHttp compares the prefix case-sensitively and decodes the hash leniently (Okio: padding optional,
                // the URL-safe alphabet too), so the file is read as OkHttp reads it.
                guard let prefix = ["sha256/", "sha1/"].first(where: token.hasPrefix) else {
                    let fix = token.lowercased().hasPrefix("sha256/") || token.lowercased().hasPrefix("sha1/")
                        ? "OkHttp reads the prefix in lower case only; write \(token.lowercased().hasPrefix("sha1/") ? "sha1/" : "sha256/")"
                        : "OkHttp pins start with sha256/ (or the legacy sha1/), like sha256/AAAA…="
                    throw PinConfigurationError(.malformedPin, source: source, line: n + 1, "\(NameDisplay.quoted(token)) is not an OkHttp pin", fix: fix)
                }
                var hash = token.dropFirst(prefix.count).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                if hash.count % 4 != 0, !hash.hasSuffix("=") { hash += String(repeating: "=", count: 4 - hash.count % 4) }
                let pin: Pin
                do { pin = try Pin(parsing: prefix + hash) } catch { throw error.placed(in: source, line: n + 1) }
                if pin.isLegacySHA1 {
                    warnings.append(PinConfigurationWarning(.legacySHA1, source: source, line: n + 1,
                        "\(token) is a legacy SHA-1 pin; replace it with the sha256/ pin of the same key"))
                }
                if pins[pattern] == nil { order.append(pattern) }
                pins[pattern, default: []].append(pin)
            }
        }
        guard !order.isEmpty else {
            throw PinConfigurationError(.emptyPinSet, source: source, "the file has no pins",
                fix: "Write one host pattern and its pins per line, like: **.example.com sha256/AAAA…=")
        }
        return (PinConfiguration(order.map { PinnedHost($0, PinSet(pins[$0] ?? [], scope: .any)) }), warnings)
    }

    package static func write(_ configuration: PinConfiguration) -> (text: String, warnings: [PinConfigurationWarning]) {
        var w: [PinConfigurationWarning] = []
        var s = "# OkHttp CertificatePinner pins: pattern sha256/hash. Keep a backup pin for every host.\n"
        for host in configuration.hosts {
            if host.isExempt {
                w.append(PinConfigurationWarning(.lossyConversion, "OkHttp cannot exempt a host from a broader pattern; the exemption of \(host.pattern) was left out, so a broader pattern's pins apply to it"))
                continue
            }
            if !host.pinSet.caPins.isEmpty || !host.pinSet.leafPins.isEmpty {
                w.append(PinConfigurationWarning(.lossyConversion, "OkHttp pins match any certificate; the CA and leaf scopes of \(host.pattern) were merged"))
            }
            if !host.pinSet.enforcePinning { w.append(PinConfigurationWarning(.lossyConversion, "OkHttp always enforces pins; the report-only set for \(host.pattern) will be enforced")) }
            if host.pinSet.expirationDate != nil { w.append(PinConfigurationWarning(.lossyConversion, "OkHttp pins do not expire; the expiration date of \(host.pattern) was dropped")) }
            for pin in host.pinSet.allPins {
                if case .spkiSHA1 = pin { s += "\(host.pattern) \(pin)\n"; continue }
                guard let converted = pin.asSPKISHA256 else { continue }
                s += "\(host.pattern) \(converted)\n"
            }
        }
        return (s, w)
    }
}
