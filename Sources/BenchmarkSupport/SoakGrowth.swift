/// Whether a soak's resident set and open descriptors grew, judged from what it measured after each round.
///
/// The first round warms caches and pools, so growth counts from the second. A leak adds to the resident set in every
/// round, since every round makes the same mix of connections. The server soak without a leak instead steps up once,
/// by 3 to 5 MiB, in a round that varies from run to run (round 2 to round 8 here, with glibc's default arenas and with
/// two), and stays there; a limit on the whole rise failed such runs (docs/RELIABILITY.md). So the largest lasting step,
/// if at most `stepLimitKiB`, is set aside, and everything else may add up to at most `limitKiB`. A steady leak's
/// lasting step is one round's growth, so with twenty rounds it is still caught at `limitKiB` over all but one of the
/// rounds after the first.
public struct SoakGrowth: Equatable, Sendable {
    public var limitKiB: Int
    public var stepLimitKiB: Int

    public init(limitKiB: Int, stepLimitKiB: Int) {
        self.limitKiB = limitKiB
        self.stepLimitKiB = stepLimitKiB
    }

    /// What the rounds showed: the rise apart from the step, and the step set aside (its size and the round it ended).
    public struct Finding: Equatable, Sendable {
        public var riseKiB: Int
        public var stepKiB: Int
        public var stepRound: Int?

        public init(riseKiB: Int, stepKiB: Int, stepRound: Int?) {
            (self.riseKiB, self.stepKiB, self.stepRound) = (riseKiB, stepKiB, stepRound)
        }
    }

    /// The rise after the first round, with the largest lasting step set aside. Rounds are counted from 1. A step
    /// lasts when every round after it stays above every round before it (from the second), so a peak given back
    /// later is not one: it counts as a rise, and what follows it is measured from where the run began.
    public static func measure(rssKiB rss: [Int]) -> Finding {
        guard rss.count >= 3 else { return Finding(riseKiB: 0, stepKiB: 0, stepRound: nil) }
        // Before index i: the highest of rounds 2...i; from index i on: the lowest.
        var highestBefore = [Int](repeating: .min, count: rss.count)
        for i in 2..<rss.count { highestBefore[i] = max(highestBefore[i - 1], rss[i - 1]) }
        var lowestFrom = rss
        for i in stride(from: rss.count - 2, through: 1, by: -1) { lowestFrom[i] = min(lowestFrom[i + 1], rss[i]) }
        var step = 0, stepIndex: Int?
        for i in 2..<rss.count where lowestFrom[i] - highestBefore[i] > step {
            step = lowestFrom[i] - highestBefore[i]
            stepIndex = i
        }
        var rise = 0
        for i in 1..<rss.count {
            let setAside = stepIndex.map { i >= $0 } == true ? step : 0
            rise = max(rise, rss[i] - rss[1] - setAside)
        }
        return Finding(riseKiB: rise, stepKiB: step, stepRound: stepIndex.map { $0 + 1 })
    }

    /// Why the rounds count as growth, or nil when they do not.
    public func growth(rssKiB rss: [Int], descriptors: [Int]) -> String? {
        guard rss.count >= 3, descriptors.count == rss.count else { return nil }
        let found = Self.measure(rssKiB: rss)
        if found.stepKiB > stepLimitKiB, let round = found.stepRound {
            return "RSS stepped up by \(found.stepKiB) KiB in round \(round) and stayed there, more than the one step of at most \(stepLimitKiB) KiB a run without a leak makes"
        }
        if found.riseKiB > limitKiB {
            let besides = found.stepKiB > 0 ? " besides one step of \(found.stepKiB) KiB" : ""
            return "RSS grew by \(found.riseKiB) KiB after the first round\(besides), over the limit of \(limitKiB) KiB"
        }
        if let last = descriptors.last, last > descriptors[1] {
            return "\(last) descriptors open at the end against \(descriptors[1]) after the first round"
        }
        return nil
    }

    /// One line for a run that did not grow.
    public static func flatSummary(rssKiB rss: [Int], descriptors: [Int]) -> String {
        let found = measure(rssKiB: rss)
        let step = found.stepRound.map { " apart from one step of \(found.stepKiB) KiB in round \($0)" } ?? ""
        return "flat: RSS within \(found.riseKiB) KiB of the second round's\(step), descriptors \(descriptors.count > 1 ? descriptors[1] : 0) → \(descriptors.last ?? 0)"
    }
}
