/// One pin that matched one certificate of a validated chain.
public struct PinMatch: Sendable, Hashable {
    /// The pin that matched.
    public var pin: Pin
    /// Where in the chain it matched.
    public var scope: PinScope
    /// Index in the built chain, 0 is the leaf.
    public var certificate: Int

    package init(pin: Pin, scope: PinScope, certificate: Int) {
        self.pin = pin
        self.scope = scope
        self.certificate = certificate
    }
}

/// The outcome of checking a ``PinSet`` against a chain.
package struct PinCheck: Sendable, Hashable {
    package typealias Match = PinMatch

    /// The scopes whose pins matched nothing. Empty when the set matched.
    package var unmatchedScopes: [PinScope]
    /// Every match found.
    package var matches: [Match]

    package var isMatch: Bool { unmatchedScopes.isEmpty }
}
