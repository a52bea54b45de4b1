import Foundation

/// One public-key pin from `NSPinnedDomains`: the base64 SHA-256 of a certificate's SubjectPublicKeyInfo.
///
/// A plain value, so it can be handed to any pinning evaluator. Apple: "NSPinnedCAIdentities … an array of
/// dictionaries … SPKI-SHA256-BASE64 … the Base64-encoded SHA-256 digest of the X.509 certificate's DER-encoded
/// ASN.1 Subject Public Key Info structure"
/// (https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nspinneddomains).
public struct PinnedIdentity: Sendable, Hashable, Codable {
    /// Which certificate the pin must match.
    public enum Scope: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// Any certificate authority in the chain (NSPinnedCAIdentities).
        case certificateAuthority = "ca"
        /// The server's own certificate (NSPinnedLeafIdentities).
        case leaf

        public var description: String { self == .leaf ? "leaf" : "CA" }
    }

    /// Whether it pins a CA of the chain or the leaf.
    public var scope: Scope
    /// The hash as written.
    public var base64: String
    /// The decoded digest, or nil if `base64` is not valid base64.
    public var digest: Data? { Data(base64Encoded: base64) }
    /// Whether the digest decodes to exactly 32 bytes (a SHA-256 output).
    public var isWellFormed: Bool { digest?.count == 32 }

    /// An identity as written: its scope and the base64 SHA-256 of a SubjectPublicKeyInfo.
    public init(scope: Scope, base64: String) {
        self.scope = scope
        self.base64 = base64
    }
}
