import BenchmarkSupport
import Foundation

/// What a soak saw: how its connections ended, and whether memory or descriptors grew.
struct SoakResult {
    var endings: [String: Int]
    /// Why the run counts as growing, if it does.
    var growth: String?
}

/// Runs `total` connections, `concurrency` at a time, in twenty rounds, printing the counts, RSS, heap in use and open
/// descriptors after each round. `connect(i)` makes connection `i` and returns the kind of ending it saw. `growth` judges
/// the rounds (``SoakGrowth``).
func soakRounds(total: Int, concurrency: Int, growth judge: SoakGrowth,
                _ connect: @escaping @Sendable (Int) async -> String) async -> SoakResult {
    print("connections  RSS KiB  heap KiB  open fds  seconds")
    let start = Date()
    var done = 0
    var endings: [String: Int] = [:]
    var marks: [SoakGrowth.Mark] = []
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
        let mark = SoakGrowth.Mark(rssKiB: residentKiB(), heapKiB: heapInUseKiB(), descriptors: openDescriptors())
        marks.append(mark)
        print(String(format: "%11d  %7d  %8d  %8d  %7.1f", done, mark.rssKiB, mark.heapKiB, mark.descriptors, Date().timeIntervalSince(start)))
    }
    for (ending, count) in endings.sorted(by: { $0.key < $1.key }) { print("  \(count) \(ending)") }
    let growth = judge.growth(marks)
    if marks.count >= 3 { print(growth.map { "GROWTH: \($0)" } ?? SoakGrowth.flatSummary(marks)) }
    return SoakResult(endings: endings, growth: growth)
}

func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
