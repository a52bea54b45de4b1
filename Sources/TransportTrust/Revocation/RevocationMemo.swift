import NIOConcurrencyHelpers
import X509

/// The revocation statuses one evaluation has established, by certificate and the path above it.
final class RevocationMemo: Sendable {
    private struct Key: Hashable {
        let certificate: CertificateKey
        /// The issuer alone for OCSP, which asks about the certificate and its issuer only. With CRLs every
        /// certificate up to the anchor: a CRL signer is accepted because a CA of that path or its anchor certified
        /// it, so the same status may not hold on a path with another CA above the issuer.
        let above: [CertificateKey]
    }

    private struct State {
        var known: [Key: RevocationCheck.Status] = [:]
        var fetched: [String: Result<CertificateRevocationList, CRLFormatError>] = [:]
        var signerCandidates: [Certificate] = []
    }

    private let state = NIOLockedValueBox(State())

    /// The certificates the peer sent, any of which may have signed a CRL.
    var signerCandidates: [Certificate] {
        get { state.withLockedValue { $0.signerCandidates } }
        set { state.withLockedValue { $0.signerCandidates = newValue } }
    }

    /// A CRL fetched once per evaluation, however many paths or certificates name it.
    func crl(at uri: String, from source: any CRLSource) async -> Result<CertificateRevocationList, CRLFormatError> {
        if let known = state.withLockedValue({ $0.fetched[uri] }) { return known }
        let result: Result<CertificateRevocationList, CRLFormatError>
        if let bytes = await source.crl(at: uri) {
            do { result = .success(try CertificateRevocationList(bytes: bytes)) } catch { result = .failure(CRLFormatError("cannot be read: \(error)")) }
        } else {
            result = .failure(CRLFormatError("could not be fetched"))
        }
        state.withLockedValue { $0.fetched[uri] = result }
        return result
    }

    subscript<Above: Collection<Certificate>>(certificate: Certificate, above above: Above) -> RevocationCheck.Status? {
        get { state.withLockedValue { $0.known[Key(certificate: CertificateKey(certificate), above: above.map(CertificateKey.init))] } }
        set { state.withLockedValue { $0.known[Key(certificate: CertificateKey(certificate), above: above.map(CertificateKey.init))] = newValue } }
    }
}
