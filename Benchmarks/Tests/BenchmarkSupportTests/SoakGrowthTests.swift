import BenchmarkSupport
import Testing

@Suite struct SoakGrowthTests {
    let server = SoakGrowth(heapLimitKiB: 2048, rssLimitKiB: 16_384)

    static func marks(rss: [Int], heap: [Int], descriptors: [Int]? = nil) -> [SoakGrowth.Mark] {
        zip(rss, heap).enumerated().map { SoakGrowth.Mark(rssKiB: $1.0, heapKiB: $1.1, descriptors: descriptors?[$0] ?? 16) }
    }

    /// `SoakTest server 10000 32` at a221703 with the heap measured: RSS wanders by 3 MiB, the heap by under 1 MiB.
    static let recordedRSS = [54_336, 54_824, 55_460, 54_988, 55_000, 55_268, 54_968, 54_968, 55_476, 55_656,
                              54_792, 56_120, 57_416, 57_416, 57_796, 55_908, 56_060, 55_528, 55_380, 55_684]
    static let recordedHeap = [2_594, 2_282, 3_039, 2_845, 3_188, 2_594, 2_594, 2_591, 2_528, 2_741,
                               2_598, 2_743, 2_880, 2_536, 2_602, 2_539, 2_471, 2_677, 2_540, 2_541]

    @Test func aRunWithoutALeakIsFlat() {
        let run = Self.marks(rss: Self.recordedRSS, heap: Self.recordedHeap)
        #expect(server.growth(run) == nil)
        #expect(SoakGrowth.flatSummary(run) == "flat: heap in use within 906 KiB and RSS within 2972 KiB of the second round's, descriptors 16 → 16")
    }

    /// The clean-clone CI run at e228b5e, failed by the RSS check of the day (5,460 KiB over the second round, with
    /// no step it could set aside). Its heap was not measured; flat, as in every run since, it passes.
    @Test func theRSSOfAFailedCIRunIsWithinTheBackstop() {
        let rss = [52_328, 53_428, 53_784, 54_168, 56_112, 55_176, 55_424, 55_840, 56_276, 56_488,
                   54_244, 55_560, 55_700, 54_768, 55_348, 55_324, 58_268, 58_888, 58_332, 57_156]
        #expect(server.growth(Self.marks(rss: rss, heap: Self.recordedHeap)) == nil)
    }

    /// Rounds of 500 connections: a quarter KiB a connection leaked fails; a sixth does not.
    @Test func aLeakOfAQuarterKiBAConnectionFails() throws {
        func leaking(_ perRound: Int) -> [SoakGrowth.Mark] {
            Self.marks(rss: Self.recordedRSS, heap: Self.recordedHeap.enumerated().map { $1 + perRound * $0 })
        }
        #expect(server.growth(leaking(80)) == nil)
        let growth = try #require(server.growth(leaking(125)))
        #expect(growth.hasPrefix("the heap in use grew by"))
        #expect(growth.hasSuffix("over the limit of 2048 KiB"))
    }

    @Test func memoryOutsideTheHeapIsCaughtByRSS() {
        let rss = Self.recordedRSS.enumerated().map { $1 + ($0 >= 10 ? 17_000 : 0) }
        #expect(server.growth(Self.marks(rss: rss, heap: Self.recordedHeap))?.hasPrefix("RSS grew by ") == true)
    }

    /// The first round warms caches and pools: what it allocates does not count.
    @Test func theFirstRoundIsNotCounted() {
        var heap = Self.recordedHeap, rss = Self.recordedRSS
        heap[0] = 0
        rss[0] = 20_000
        #expect(server.growth(Self.marks(rss: rss, heap: heap)) == nil)
    }

    @Test func aDescriptorLeftOpenFails() {
        let descriptors = (0..<20).map { $0 == 19 ? 17 : 16 }
        #expect(server.growth(Self.marks(rss: Self.recordedRSS, heap: Self.recordedHeap, descriptors: descriptors))
                == "17 descriptors open at the end against 16 after the first round")
    }

    /// Where the C library does not count its heap, RSS alone judges, and the summary says so.
    @Test func anUnknownHeapIsSaid() {
        let run = Self.marks(rss: Self.recordedRSS, heap: [Int](repeating: 0, count: 20))
        #expect(server.growth(run) == nil)
        #expect(SoakGrowth.flatSummary(run).hasPrefix("flat: heap in use not known here and RSS within 2972 KiB"))
        #expect(server.growth(Self.marks(rss: [1, 90_000], heap: [1, 90_000])) == nil, "too short to judge")
    }
}
