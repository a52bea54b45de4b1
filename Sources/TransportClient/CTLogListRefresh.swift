import Foundation
import Logging
import NIOHTTP1
import TransportTrust

extension CTLogListStore {
    /// Fetches Apple's list through `client` and keeps it (`CTLogListStore.refresh(from:now:fetch:)`).
    ///
    /// The request runs under the client's trust settings: its anchors, the SSL policy for the list's host, and its
    /// pins, if any. Anything but a 200 response with its whole body is a failed fetch, and the kept list stays.
    public func refresh(using client: HTTPSClient, from address: String = CTLogListStore.appleListAddress,
                        now: Date = Date()) async throws(CTLogListStoreError) -> CTLogList {
        try await refresh(from: address, now: now) { address in try await Self.fetch(address, with: client) }
    }

    /// GET `address`; the body of a 200 response, or an error that says what the server did instead.
    static func fetch(_ address: String, with client: HTTPSClient) async throws(CTLogListFetchError) -> [UInt8] {
        let response: HTTPResponse
        do {
            response = try await client.execute(HTTPRequest(url: address))
        } catch {
            // The message says it in words; `underlying` is the dependency's own text, which users are not shown.
            throw CTLogListFetchError(reason: error.message)
        }
        guard response.statusCode == 200 else {
            throw CTLogListFetchError(reason: "the server answered \(response.statusCode) \(response.status.reasonPhrase), not 200 with a list")
        }
        return response.body
    }
}

/// Why fetching a CT log list failed, in words.
struct CTLogListFetchError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// Keeps a `CTLogListStore` current on a schedule, as a device checks in with Apple.
///
/// A server that refreshes daily keeps Certificate Transparency enforced. When refreshes keep failing, the list in
/// force ages as a device's does: CT stops being enforced 60 days after the last success
/// (`CTLogList.maximumAgeDays`), and the refresher logs one warning when that happens, not one per attempt.
public struct CTLogListRefresher: Sendable {
    /// The store the list is kept in.
    public var store: CTLogListStore
    /// The client that fetches the list; its trust settings decide which servers are trusted.
    public var client: HTTPSClient
    /// Where the list is fetched.
    public var address: String
    /// Where each failure, and the end of enforcement, are logged.
    public var logger: Logger

    /// A refresher for `store`, fetching `address` through `client`.
    public init(store: CTLogListStore, client: HTTPSClient, address: String = CTLogListStore.appleListAddress,
                logger: Logger = Logger(label: "swift-transport-security.ct-log-list")) {
        self.store = store
        self.client = client
        self.address = address
        self.logger = logger
    }

    /// Refreshes now and returns the list in force afterwards: the new one, or on failure the one kept before (or the
    /// bundled list), which the failure does not change. Failures are logged.
    public func refreshOnce(now: Date = Date()) async -> CTLogList? {
        do {
            let list = try await store.refresh(using: client, from: address, now: now)
            logger.info("CT log list refreshed", metadata: ["version": "\(list.version)", "source": "\(address)"])
        } catch {
            logger.warning("CT log list refresh failed", metadata: ["reason": "\(error)"])
        }
        return store.listInForce().list
    }

    /// Refreshes every `interval` until the task is cancelled, handing each list in force to `update` (for example, to
    /// build the client or trust options that use it).
    public func run(every interval: Duration = .seconds(86_400),
                    update: @Sendable (CTLogList?) async -> Void) async {
        var warning = CTLogListStaleWarning()
        while !Task.isCancelled {
            let now = Date()
            let list = await refreshOnce(now: now)
            if let text = warning.check(list, at: now) { logger.warning("\(text)") }
            await update(list)
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}

/// Says once that CT stopped being enforced because the list in force went out of date, and again only after a
/// current list has been seen in between.
package struct CTLogListStaleWarning: Sendable {
    private var warned = false

    package init() {}

    /// The warning to log for `list` at `time`, or nil when there is none or it was already given.
    package mutating func check(_ list: CTLogList?, at time: Date) -> String? {
        guard let list, !list.isCurrent(at: time) else {
            warned = false
            return nil
        }
        guard !warned else { return nil }
        warned = true
        let age = list.age(at: time).map { "\($0) days" } ?? "too"
        return "Certificate Transparency is no longer enforced: \(list.summary) is \(age) old, and a device stops enforcing CT once its list is \(CTLogList.maximumAgeDays) days old. Refreshes have failed since; see the earlier warnings for why"
    }
}
