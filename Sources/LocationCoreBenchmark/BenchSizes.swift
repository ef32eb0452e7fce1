/// How large each measure runs: the full sizes the targets are for, or a tenth of them with `--quick`.
struct BenchSizes {
    /// 1 for a full run, 10 for a quick one: populations are divided by it, and the switch's target too.
    var scale: Int
    var apps: Int { 1_000 / scale }
    /// Live sessions in the churn and switch measures.
    var population: Int { 100_000 / scale }
    /// CreateSession + InvalidateSession pairs the churn measure times.
    var churnPairs: Int
    /// Flips of the global switch, each way, whose median is reported.
    var flips: Int
    /// The lingering populations the deadline measure compares.
    var deadlinePopulations: [Int]

    init(quick: Bool) {
        scale = quick ? 10 : 1
        churnPairs = quick ? 50_000 : 500_000
        flips = quick ? 3 : 7
        deadlinePopulations = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]
    }
}
