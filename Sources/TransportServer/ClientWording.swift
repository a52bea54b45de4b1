import TransportTrust

/// The engine words its reasons for the chains servers send; a client certificate's refusal must name the client,
/// or "add the intermediate to the server's chain" sends an operator to fix the wrong side.
enum ClientWording {
    static let replacements: [(String, String)] = [
        ("the server's own certificate", "the client's own certificate"),
        ("the server's chain", "the client's chain"),
        ("the server sent", "the client sent"),
        ("the server did not send", "the client did not send"),
        ("sent by the server", "sent by the client"),
    ]

    static func adapt(_ failures: [TrustFailure]) -> [TrustFailure] {
        failures.map { failure in
            var failure = failure
            for (server, client) in replacements where failure.message.contains(server) {
                failure.message = failure.message.replacingOccurrences(of: server, with: client)
            }
            return failure
        }
    }
}
