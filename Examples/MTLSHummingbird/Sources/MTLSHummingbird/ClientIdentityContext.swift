import Hummingbird
import NIOCore
import TransportServer

/// A request context that can hand a route the verdict on the client of its connection.
struct ClientIdentityContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The verified client, or a 403 for a connection without one (optional mode, no certificate sent).
    func verifiedClient() async throws -> ClientCertificateVerdict {
        guard let verdict = try await channel.clientCertificateVerdict().get(), verdict.isVerified else {
            throw HTTPError(.forbidden, message: "this route needs a verified client certificate\n")
        }
        return verdict
    }
}
