import BenchmarkSupport
import Foundation

/// What a soak saw: how its connections ended, and whether memory or descriptors grew.
struct SoakResult {
    var endings: [String: Int]
    /// Why the run counts as growing, if it does.
    var growth: String?
}

/// Runs `total` connections, `concurrency` at a time, in ten rounds, printing the counts, RSS and open descriptors
/// after each round. `connect(i)` makes connection `i` and returns the kind of ending it saw. Growth is judged from the
/// second round on (the first warms caches and pools up): RSS may not rise by more than `rssLimitKiB`, and the last
/// round may not end with more descriptors open than the second.
func soakRounds(total: Int, concurrency: Int, rssLimitKiB: Int,
                _ connect: @escaping @Sendable (Int) async -> String) async -> SoakResult {
    print("connections  RSS KiB  open fds  seconds")
    let start = Date()
    var done = 0
    var endings: [String: Int] = [:]
    var marks: [(rss: Int, fds: Int)] = []
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
        marks.append((residentKiB(), openDescriptors()))
        print(String(format: "%11d  %7d  %8d  %7.1f", done, marks[marks.count - 1].rss, marks[marks.count - 1].fds, Date().timeIntervalSince(start)))
    }
    for (ending, count) in endings.sorted(by: { $0.key < $1.key }) { print("  \(count) \(ending)") }
    var growth: String?
    if marks.count >= 3 {
        let base = marks[1], peak = marks.dropFirst().map(\.rss).max() ?? base.rss, last = marks[marks.count - 1]
        if peak - base.rss > rssLimitKiB {
            growth = "RSS grew by \(peak - base.rss) KiB after the first round, over the limit of \(rssLimitKiB) KiB"
        } else if last.fds > base.fds {
            growth = "\(last.fds) descriptors open at the end against \(base.fds) after the first round"
        }
        print(growth.map { "GROWTH: \($0)" } ?? "flat: RSS within \(peak - base.rss) KiB of the first round's, descriptors \(base.fds) → \(last.fds)")
    }
    return SoakResult(endings: endings, growth: growth)
}

func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
