import AppTransportSecurity
import TransportTrust

/// What a server-trust challenge shows the delegate: the verdict, the ATS evaluation, and the negotiated TLS.
public struct ServerTrustChallengeInfo: Sendable {
    /// The chain (as built), every failure, and where trust came from.
    public var verdict: TrustVerdict
    /// The same connection checked against the ATS requirements.
    public var atsEvaluation: ConnectionEvaluation
    /// The version and cipher suite the handshake negotiated.
    public var handshake: HandshakeSummary
    /// The certificates as the server presented them, DER, leaf first.
    public var presentedCertificates: [[UInt8]]
    /// Whether the requirements let the delegate accept a chain the evaluation refused
    /// (NSExceptionAllowsInsecureHTTPLoads, or ATS not applying: arbitrary loads, an exempt local host).
    public var delegateMayLoosenTrust: Bool
}
