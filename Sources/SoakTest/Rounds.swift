import BenchmarkSupport
import Foundation

/// Runs `total` connections, `concurrency` at a time, in ten rounds, printing the counts, RSS and open descriptors
/// after each round. `connect(i)` makes connection `i` and returns the kind of ending it saw.
func soakRounds(total: Int, concurrency: Int, _ connect: @escaping @Sendable (Int) async -> String) async -> [String: Int] {
    print("connections  RSS KiB  open fds  seconds")
    let start = Date()
    var done = 0
    var endings: [String: Int] = [:]
    let step = max(1, total / 10)
    while done < total {
        let batch = min(step, total - done), offset = done
        let round = await withTaskGroup(of: String.self) { group in
            var seen: [String: Int] = [:], next = 0
            while next < min(concurrency, batch) { let i = offset + next; group.addTask { await connect(i) }; next += 1 }
            while let ending = await group.next() {
                seen[ending, default: 0] += 1
                if next < batch { let i = offset + next; group.addTask { await connect(i) }; next += 1 }
            }
            return seen
        }
        endings.merge(round, uniquingKeysWith: +)
        done += batch
        print(String(format: "%11d  %7d  %8d  %7.1f", done, residentKiB(), openDescriptors(), Date().timeIntervalSince(start)))
    }
    for (ending, count) in endings.sorted(by: { $0.key < $1.key }) { print("  \(count) \(ending)") }
    return endings
}

func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
