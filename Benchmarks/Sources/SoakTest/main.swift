import Foundation

// Soak tests (issue #24, docs/RELIABILITY.md), in bounded counts: every connection must fail closed, and resident
// memory and open file descriptors, printed every tenth of the run, must not grow.
//
//     swift build --product SoakTest
//     .build/debug/SoakTest [CONNECTIONS] [CONCURRENCY]          the client against hostile servers (default 10000 32)
//     .build/debug/SoakTest server [CONNECTIONS] [CONCURRENCY]   hostile clients against TransportServer

var arguments = CommandLine.arguments.dropFirst()
let server = arguments.first == "server"
if server || arguments.first == "client" { arguments = arguments.dropFirst() }
let total = arguments.first.flatMap(Int.init) ?? 10_000
let concurrency = arguments.dropFirst().first.flatMap(Int.init) ?? 32

let failures = server ? try await ServerSoak.run(total: total, concurrency: concurrency)
                      : try await ClientSoak.run(total: total, concurrency: concurrency)
exit(failures == 0 ? 0 : 1)
