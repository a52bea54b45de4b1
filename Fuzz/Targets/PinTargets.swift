import AppTransportSecurity
import Foundation
import TransportTrust

extension FuzzTarget {
    static let pinsATS = pins(.ats, name: "pins-ats")
    static let pinsTrustKit = pins(.trustKit, name: "pins-trustkit")
    static let pinsTrustKitJSON = pins(.trustKitJSON, name: "pins-trustkit-json")
    static let pinsOkHttp = pins(.okhttp, name: "pins-okhttp")
    static let pinsAndroid = pins(.android, name: "pins-android")

    /// A pin file in one format, read as `ats pins --pin-file` reads it. A configuration that validates and that its own
    /// format writes without a warning must read back as the same configuration.
    static func pins(_ format: PinConfigurationFormat, name: String) -> FuzzTarget {
        FuzzTarget(name: name, summary: "\(format.rawValue) pin file → PinConfigurationFormat.read, validate, write") { bytes in
            _ = PinConfigurationFormat.detect(bytes)
            guard let (configuration, _) = try? PinConfigurationFormat.read(bytes, source: "fuzz", format: format) else { return }
            for host in ["www.example.test", "example.test", "a.b.example.com", "127.0.0.1"] { _ = configuration.entry(for: host) }
            guard (try? configuration.validate(now: fuzzTime, source: "fuzz")) != nil else { return }
            let (text, warnings) = format.write(configuration)
            guard warnings.isEmpty else { return }
            guard let (again, _) = try? PinConfigurationFormat.read(Array(text.utf8), source: "rewritten", format: format) else {
                violated("\(format.rawValue) written from a valid configuration does not read back:\n\(text)")
            }
            // The most specific pattern applies whatever the order (OkHttp applies all), so the hosts compare as a set.
            if Set(again.hosts) != Set(configuration.hosts) {
                violated("\(format.rawValue) written and read back differs:\n\(configuration.hosts)\n\(again.hosts)")
            }
        }
    }
}
