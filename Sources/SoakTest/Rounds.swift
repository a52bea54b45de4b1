import BenchmarkSupport
import Foundation

/// What a soak saw: how its connections ended, and whether memory or descriptors grew.
struct SoakResult {
    var endings: [String: Int]
    /// Why the run counts as growing, if it does.
    var growth: String?
}

/// Runs `total` connections, `concurrency` at a time, in twenty rounds, printing the counts, RSS and open descriptors
/// after each round. `connect(i)` makes connection `i` and returns the kind of ending it saw. `growth` judges the rounds
/// (``SoakGrowth``): twenty, so that the one lasting step it sets aside is a small part of the run.
func soakRounds(total: Int, concurrency: Int, growth judge: SoakGrowth,
                _ connect: @escaping @Sendable (Int) async -> String) async -> SoakResult {
    print("connections  RSS KiB  open fds  seconds")
    let start = Date()
    var done = 0
    var endings: [String: Int] = [:]
    var marks: [(rss: Int, fds: Int)] = []
    let step = max(1, total / 20)
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
    let rss = marks.map(\.rss), fds = marks.map(\.fds)
    let growth = judge.growth(rssKiB: rss, descriptors: fds)
    if marks.count >= 3 { print(growth.map { "GROWTH: \($0)" } ?? SoakGrowth.flatSummary(rssKiB: rss, descriptors: fds)) }
    return SoakResult(endings: endings, growth: growth)
}

func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
