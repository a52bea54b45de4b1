/// Whether a soak leaked memory or descriptors, judged from what it measured after each round.
///
/// The first round warms caches and pools, so growth counts from the second. Memory is judged on the heap in use
/// (``heapInUseKiB()``): a leak adds to it one for one, and without one it stays within a few hundred KiB. The
/// resident set is a backstop for memory malloc does not hand out, with a wide limit: without a leak it wanders by
/// a MiB or two and sometimes settles 3 to 5 MiB higher in a round that varies with load, which failed CI when RSS
/// was the measure (docs/RELIABILITY.md).
public struct SoakGrowth: Equatable, Sendable {
    public var heapLimitKiB: Int
    public var rssLimitKiB: Int

    public init(heapLimitKiB: Int, rssLimitKiB: Int) {
        self.heapLimitKiB = heapLimitKiB
        self.rssLimitKiB = rssLimitKiB
    }

    /// What one round ended with.
    public struct Mark: Equatable, Sendable {
        public var rssKiB: Int
        /// 0 where the C library does not say.
        public var heapKiB: Int
        public var descriptors: Int

        public init(rssKiB: Int, heapKiB: Int, descriptors: Int) {
            (self.rssKiB, self.heapKiB, self.descriptors) = (rssKiB, heapKiB, descriptors)
        }
    }

    /// The most a series rose above its second round's value.
    static func rise(_ values: [Int]) -> Int { values.dropFirst().map { $0 - values[1] }.max() ?? 0 }

    /// Why the rounds count as growth, or nil when they do not.
    public func growth(_ marks: [Mark]) -> String? {
        guard marks.count >= 3 else { return nil }
        let heap = Self.rise(marks.map(\.heapKiB)), rss = Self.rise(marks.map(\.rssKiB))
        if heap > heapLimitKiB {
            return "the heap in use grew by \(heap) KiB after the first round, over the limit of \(heapLimitKiB) KiB"
        }
        if rss > rssLimitKiB {
            return "RSS grew by \(rss) KiB after the first round, over the limit of \(rssLimitKiB) KiB"
        }
        if let last = marks.last?.descriptors, last > marks[1].descriptors {
            return "\(last) descriptors open at the end against \(marks[1].descriptors) after the first round"
        }
        return nil
    }

    /// One line for a run that did not grow.
    public static func flatSummary(_ marks: [Mark]) -> String {
        guard marks.count >= 2 else { return "flat" }
        let heap = marks.contains { $0.heapKiB > 0 } ? "heap in use within \(rise(marks.map(\.heapKiB))) KiB" : "heap in use not known here"
        return "flat: \(heap) and RSS within \(rise(marks.map(\.rssKiB))) KiB of the second round's, descriptors \(marks[1].descriptors) → \(marks[marks.count - 1].descriptors)"
    }
}
