import TransportTrust

/// CRLs handed in as files (`ats verify --crl`), DER or PEM.
enum CRLFiles {
    static func load(_ paths: [String]) throws -> [CertificateRevocationList] {
        var crls: [CertificateRevocationList] = []
        for path in paths {
            let bytes: [UInt8]
            do { bytes = Array(try InputFile.read(path)) } catch {
                throw InputError("cannot read the CRL '\(InputFile.source(path))': \(error.reason)")
            }
            do { crls.append(try CertificateRevocationList(bytes: bytes)) } catch {
                throw InputError("'\(InputFile.source(path))' is not a usable CRL: \(error)")
            }
        }
        return crls
    }
}
