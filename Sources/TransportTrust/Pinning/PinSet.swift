import Foundation

/// A set of pins for one host or pattern, TrustKit style: SPKI hashes (or any ``Pin``), enforce or report only,
/// an expiration date and report URIs.
///
/// Pins are grouped by ``PinScope``. Every non-empty group must match, which gives ATS's rule that when both
/// `NSPinnedCAIdentities` and `NSPinnedLeafIdentities` are given both must match. Within a group any one pin
/// matching is enough, so a backup pin can stand beside the current one.
///
/// Pins are matched against the chain the evaluator *built*, leaf to anchor, not against whatever the server
/// sent. Pinning a root therefore works even when the server does not send its root (most do not), and a
/// certificate the server sends but that is not on the validated path can never satisfy a pin.
public struct PinSet: Sendable, Hashable {
    /// Pins that may match any certificate of the chain (TrustKit, OkHttp, Android).
    public var pins: [Pin]
    /// Pins that must match a CA certificate, above the leaf (ATS `NSPinnedCAIdentities`).
    public var caPins: [Pin]
    /// Pins that must match the leaf (ATS `NSPinnedLeafIdentities`).
    public var leafPins: [Pin]
    /// When false, a mismatch is reported and noted but does not refuse trust (TrustKit `kTSKEnforcePinning`).
    public var enforcePinning: Bool
    /// After this date the set enforces nothing, and the verdict says so (TrustKit `kTSKExpirationDate`,
    /// Android `<pin-set expiration>`).
    public var expirationDate: Date?
    /// Where pin failure reports go (TrustKit `kTSKReportUris`).
    public var reportURIs: [String]

    /// A set with pins in any of the three scopes; every scope given must match.
    public init(pins: [Pin] = [], caPins: [Pin] = [], leafPins: [Pin] = [], enforcePinning: Bool = true,
                expirationDate: Date? = nil, reportURIs: [String] = []) {
        self.pins = pins
        self.caPins = caPins
        self.leafPins = leafPins
        self.enforcePinning = enforcePinning
        self.expirationDate = expirationDate
        self.reportURIs = reportURIs
    }

    /// A set of `pins` that must match in `scope`.
    public init(_ pins: [Pin], scope: PinScope, enforcePinning: Bool = true, expirationDate: Date? = nil, reportURIs: [String] = []) {
        self.init(enforcePinning: enforcePinning, expirationDate: expirationDate, reportURIs: reportURIs)
        self[scope] = pins
    }

    /// The pins of one scope.
    public subscript(scope: PinScope) -> [Pin] {
        get {
            switch scope {
            case .any: return pins
            case .ca: return caPins
            case .leaf: return leafPins
            }
        }
        set {
            switch scope {
            case .any: pins = newValue
            case .ca: caPins = newValue
            case .leaf: leafPins = newValue
            }
        }
    }

    /// Every pin, whatever its scope.
    public var allPins: [Pin] { pins + caPins + leafPins }

    /// The scopes that have pins, in the order any, CA, leaf.
    public var groups: [(scope: PinScope, pins: [Pin])] {
        PinScope.allCases.compactMap { s in self[s].isEmpty ? nil : (s, self[s]) }
    }

    /// Whether the set has expired at `date`.
    public func isExpired(at date: Date) -> Bool { expirationDate.map { date > $0 } ?? false }

    /// Checks the set against `chain` (leaf first, as built). Every non-empty group must have a pin that matches
    /// a certificate in its scope. An empty set matches nothing.
    package func check(_ chain: [CertificateFingerprint]) -> PinCheck {
        guard !groups.isEmpty else { return PinCheck(unmatchedScopes: [.any], matches: []) }
        var unmatched: [PinScope] = []
        var matches: [PinCheck.Match] = []
        for (scope, pins) in groups {
            var found = false
            for (i, fp) in chain.enumerated() where scope.covers(index: i) {
                if let pin = pins.first(where: { $0.matches(fp) }) {
                    matches.append(PinCheck.Match(pin: pin, scope: scope, certificate: i))
                    found = true
                }
            }
            if !found { unmatched.append(scope) }
        }
        return PinCheck(unmatchedScopes: unmatched, matches: matches)
    }

    /// The OkHttp-style explanation of a mismatch: what each group needed, and the chain's actual hashes, so a
    /// reader sees at once which pin would have matched.
    package func mismatchMessage(host: String?, chain: [CertificateFingerprint], unmatched: [PinScope]) -> String {
        var s = "certificate pinning failure"
        if let host { s += " for \(host)" }
        s += ": "
        s += unmatched.map { scope in "no pin of the \(scope == .any ? "" : scope.rawValue.uppercased() + " ")pin set matched \(scope)" }
            .joined(separator: "; ")
        s += ".\n  Peer certificate chain (as built):"
        for (i, fp) in chain.enumerated() {
            let role = i == 0 ? "leaf" : "CA"
            s += "\n    \(fp.sha256Pin): \(NameDisplay.plain(fp.subject)) [\(role)]"
        }
        for (scope, pins) in groups {
            s += "\n  Pinned (\(scope.rawValue)):"
            for pin in pins { s += "\n    \(pin)" }
        }
        return s
    }
}
