/// The outcome of checking a ``PinSet`` against a chain.
public struct PinCheck: Sendable, Hashable {
    /// One pin that matched one certificate.
    public struct Match: Sendable, Hashable {
        public var pin: Pin
        public var scope: PinScope
        /// Index in the built chain, 0 is the leaf.
        public var certificate: Int
    }

    /// The scopes whose pins matched nothing. Empty when the set matched.
    public var unmatchedScopes: [PinScope]
    /// Every match found.
    public var matches: [Match]

    public var isMatch: Bool { unmatchedScopes.isEmpty }
}
