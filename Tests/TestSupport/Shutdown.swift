/// Runs `body`, then awaits `shutdown`, whether `body` returned or threw.
///
/// The structured form of `defer { Task { await server.shutdown() } }`, which let a test end, and the next start,
/// while its servers were still closing: on two cores that left event loops and sockets of finished tests
/// competing with the running ones.
public func withShutdown<R>(_ shutdown: () async -> Void, _ body: () async throws -> R) async rethrows -> R {
    let result: R
    do {
        result = try await body()
    } catch {
        await shutdown()
        throw error
    }
    await shutdown()
    return result
}
