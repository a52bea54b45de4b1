import TransportTrust

/// OCSP responses handed in as files (`ats verify --ocsp-response`, `ats serve --mtls --client-ocsp-response`).
enum OCSPResponseFiles {
    /// The revocation options for `mode` and the responses in `paths`: soft-fail when responses are given without a
    /// mode, since a response handed in is there to be checked and a "revoked" in it must not pass unseen.
    /// - Parameter options: the two options' names, for messages.
    /// - Parameter crls: CRL files (`--crl`), DER or PEM; like responses, they turn soft-fail on.
    static func revocation(mode: RevocationOptions.Mode?, responses paths: [String], crls crlPaths: [String] = [],
                           options: (response: String, mode: String), crlOption: String = "--crl") throws -> RevocationOptions {
        var responses: [[UInt8]] = []
        for path in paths {
            let der: [UInt8]
            do { der = Array(try InputFile.read(path)) } catch {
                throw InputError("cannot read the OCSP response '\(InputFile.source(path))': \(error.reason)")
            }
            do { try RevocationOptions.checkResponseShape(der) } catch {
                throw InputError("'\(InputFile.source(path))' is not an OCSP response: \(error)")
            }
            responses.append(der)
        }
        let crls = try CRLFiles.load(crlPaths)
        let mode = mode ?? (responses.isEmpty && crls.isEmpty ? .off : .soft)
        if mode == .off && !responses.isEmpty {
            throw InputError("\(options.response) with \(options.mode) off would ignore the response; use \(options.mode) soft or hard, or drop it")
        }
        if mode == .off && !crls.isEmpty {
            throw InputError("\(crlOption) with \(options.mode) off would ignore the CRL; use \(options.mode) soft or hard, or drop it")
        }
        return RevocationOptions(mode: mode, responses: responses, crls: crls)
    }
}
