import AppTransportSecurity
import Foundation
import TransportTrust

extension FuzzTarget {
    /// An Info.plist, XML or binary, through everything `ats audit` and `ats check` do with it; a plist that reads must
    /// survive being written back (as binary, which keeps every value exactly) and read again unchanged.
    static let atsConfig = FuzzTarget(name: "ats-config", summary: "Info.plist (XML/binary) → ATS configuration, audit, requirements") { bytes in
        let data = Data(bytes)
        guard let source = try? ConfigurationLoader().load(data: data, name: "fuzz.plist") else { return }
        let auditor = Auditor()
        _ = auditor.findings(in: source)
        _ = auditor.readingFindings(in: source)
        let resolver = RequirementsResolver(configuration: source.configuration)
        for url in ["https://www.example.test/", "http://example.test/a", "https://a.b.example.com:8443/", "http://127.0.0.1/", "http://localhost/"] {
            _ = try? resolver.requirements(for: url)
        }
        _ = resolver.arbitraryLoadsIgnoredReason()
        guard let document = try? PropertyListReader().read(data) else { violated("the loader read a plist the reader refuses") }
        checkRoundTrip(document.root)
    }

    /// A binary plist into `BinaryPlistValidator`, and whatever it lets through into Foundation's own reader, whose
    /// recursion and expansion it is there to bound.
    static let binaryPlist = FuzzTarget(name: "binary-plist", summary: "binary plist → BinaryPlistValidator → Foundation") { bytes in
        do { try BinaryPlistValidator(bytes: bytes).validate() } catch { return }
        _ = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        if let document = try? PropertyListReader().read(Data(bytes)) { checkRoundTrip(document.root) }
    }

    static func checkRoundTrip(_ root: PlistValue) {
        let rewritten: Data
        do { rewritten = try PropertyListSerialization.data(fromPropertyList: root.foundationObject, format: .binary, options: 0) } catch {
            violated("a plist that was read cannot be written back: \(error)")
        }
        do { try BinaryPlistValidator(bytes: Array(rewritten)).validate() } catch {
            violated("the validator refuses what Foundation wrote: \(error)")
        }
        guard let again = try? PropertyListReader().read(rewritten) else { violated("a plist written back does not read again") }
        if !same(root, again.root) { violated("a plist written back reads as another value") }
    }

    /// Equality with NaN equal to itself: a plist may hold `<real>nan</real>`.
    static func same(_ a: PlistValue, _ b: PlistValue) -> Bool {
        switch (a, b) {
        case (.real(let x), .real(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        default: return a == b
        }
    }
}
