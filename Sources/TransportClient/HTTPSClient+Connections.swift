import AppTransportSecurity
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import TransportDecision
import TransportTrust

// Opening or reusing a connection for a request, and the client-certificate retry around it.
extension HTTPSClient {
    func send(_ request: HTTPRequest, to target: Target, deadline: NIODeadline, streaming: Bool) async throws(TransportError)
        -> (Connection, Connection.Started) {
        let (head, givenProxyAuthorization) = requestHead(for: request, to: target)
        var attempts = SendAttempts()
        var identity = target.identity
        while true {
            var reused = false
            do throws(TransportError) {
                let connection: Connection
                (connection, reused) = try await self.connection(for: target, identity: identity, deadline: deadline,
                                                                   proxyAuthorization: givenProxyAuthorization)
                target.loopHint.remember(connection.channel.eventLoop)
                // Cancelled before its request went out: nothing is sent, and the connection it was given goes back
                // as it came (an idle HTTP/1.1 connection stays kept; a new HTTP/2 stream just ends).
                if Task.isCancelled {
                    pool.put(connection)
                    throw TransportError.cancelled(.request, host: target.host, port: target.port, "before anything was sent")
                }
                let started = try await connection.start(head: head, body: request.body, limit: configuration.maximumResponseBytes,
                                                         deadline: deadline, streaming: streaming)
                return (connection, started)
            } catch {
                let handler = configuration.challengeHandler
                switch attempts.failed(error, reused: reused, method: request.method, identityPresented: identity != nil, hasHandler: handler != nil) {
                case .retry: continue
                case .fail: throw error
                case .askForIdentity: break
                }
                guard let handler else { throw error }
                let space = ProtectionSpace(host: target.host, port: target.port, protocol: "https", realm: nil,
                                            authenticationMethod: .clientCertificate)
                let disposition = await handler(AuthenticationChallenge(protectionSpace: space, previousFailureCount: 0))
                switch ClientCertificateChallenge.outcome(Self.answer(disposition)) {
                case .retryPresentingIdentity:
                    if case .useCredential(let credential) = disposition, case .identity(let chosen) = credential.kind { identity = chosen }
                case .cancelled:
                    throw TransportError(.authenticationCancelled, phase: .handshake, host: target.host, port: target.port,
                                         "the challenge handler cancelled the client-certificate challenge")
                case .refusalStands:
                    throw error
                }
            }
        }
    }

    /// The request's head as it goes on the wire, and the caller's Proxy-Authorization, which goes only to a proxy.
    private func requestHead(for request: HTTPRequest, to target: Target) -> (HTTPRequestHead, proxyAuthorization: String?) {
        var head = HTTPRequestHead(version: .http1_1, method: request.method, uri: target.path, headers: request.headers)
        // Room for what is added below, taken once: the caller's headers are copied anyway, and growing the copy for
        // host, then user-agent, was an allocation each.
        head.headers.reserveCapacity(head.headers.count + 3)
        let hostHeader = target.hostHeader
        if !head.headers.contains(name: "host") { head.headers.add(name: "host", value: hostHeader) }
        // A proxy credential is for the proxy alone (RFC 9110 §11.7.2), never an origin: a caller's goes on CONNECT
        // for https, and on the request itself only when that request is sent to the proxy.
        let givenProxyAuthorization = head.headers.first(name: "proxy-authorization")
        head.headers.remove(name: "proxy-authorization")
        // Plain http through a proxy: the absolute form, with the proxy's credential (RFC 9112 §3.2.2). An https
        // request goes inside the tunnel, where the proxy credential never is.
        if target.scheme == "http", let proxy = target.route {
            head.uri = "http://\(hostHeader)\(target.path)"
            if let authorization = proxyAuthorizations.withLockedValue({ $0[proxy.description] }) ?? givenProxyAuthorization {
                head.headers.replaceOrAdd(name: "proxy-authorization", value: authorization)
            }
        }
        if let body = request.body { head.headers.replaceOrAdd(name: "content-length", value: String(body.count)) }
        if !head.headers.contains(name: "user-agent") { head.headers.add(name: "user-agent", value: "swift-transport-security") }
        return (head, givenProxyAuthorization)
    }

    /// The delegate's answer to a client-certificate challenge, as the decision sees it.
    static func answer(_ disposition: ChallengeDisposition) -> ClientCertificateChallenge.Answer {
        switch disposition {
        case .cancelAuthenticationChallenge: return .cancel
        case .performDefaultHandling, .rejectProtectionSpace: return .noIdentity
        case .useCredential(let credential):
            if case .identity = credential.kind { return .identity }
            return .wrongCredential
        }
    }

    /// - Parameter proxyAuthorization: the caller's Proxy-Authorization, sent on CONNECT when none is remembered.
    func connection(for target: Target, identity: ClientIdentity?, deadline: NIODeadline,
                    proxyAuthorization: String? = nil) async throws(TransportError) -> (Connection, reused: Bool) {
        let route = target.route
        let key = target.poolKey(identity: identity)
        // A shared HTTP/2 connection that closed between the look and the new stream has had no byte of this request:
        // a new connection is opened instead.
        switch pool.reusable(key) {
        case .session(let session): if let stream = try? await session.openStream() { return (stream, true) }
        case .connection(let pooled): return (pooled, true)
        case nil: break
        }
        // Requests that start together wait for one connection when it may be HTTP/2, and share it if it is.
        var opener = false
        if target.scheme == "https" && configuration.httpVersions != .http1Only {
            opener = pool.beginOpening(key)
            if !opener, let session = await pool.waitForOpening(key, deadline: deadline, on: group.any()), let stream = try? await session.openStream() { return (stream, true) }
        }
        do throws(TransportError) {
            // A task cancelled (while it waited for another's connection, say) opens none.
            if Task.isCancelled { throw TransportError.cancelled(.connect, host: target.host, port: target.port, "before a connection was opened for it; none was") }
            let context = target.scheme == "https" ? try sslContext(for: target, identity: identity) : nil
            if target.scheme != "https" && configuration.httpVersions == .http2Only {
                throw TransportError(.invalidRequest, phase: .connect, host: target.host, port: target.port, Connection.http2NeedsTLS)
            }
            var tunnel: (any Channel)?
            if let route {
                tunnel = try await self.tunnel(through: route, to: target, authorization: proxyAuthorization, deadline: deadline)
            }
            let connection: Connection
            do throws(TransportError) {
                connection = try await Connection.open(target: target, key: key, configuration: configuration, identity: identity,
                                                       sslContext: context, group: group, deadline: deadline, over: tunnel)
            } catch {
                // The proxy connection is this request's alone until the origin's connection owns it.
                tunnel?.close(promise: nil)
                throw error
            }
            if opener { pool.finishOpening(key, session: connection.session) } else if let session = connection.session { pool.add(session) }
            return (connection, false)
        } catch {
            if opener { pool.finishOpening(key, session: nil) }
            throw error
        }
    }
}
