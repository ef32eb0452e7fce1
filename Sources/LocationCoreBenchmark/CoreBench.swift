import ArgumentParser

/// `locd-core-bench`: the rules engine alone, driven as the shell would drive it, timed with `ContinuousClock`.
///
/// Four figures, each printed with its target: create/invalidate churn against a large live population
/// (core events per second); one flip of the global switch, which re-evaluates and reports every session
/// (median of several); expiring lingering sessions one deadline at a time, at growing populations (cost
/// per event); reading a subordinate-uid file of a million lines and looking uids up in it (H9).
@main
struct CoreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locd-core-bench",
        abstract: "Benchmark of LocationCore alone: session churn, the global switch, deadline wake-ups and "
            + "subordinate uid ranges, each against its target, in one table.",
        discussion: "Build it in release: swift build -c release --product locd-core-bench"
    )

    @Flag(help: "Every measure at a tenth of its size: proves the benchmark runs; the switch's target scales with it.")
    var quick = false

    @Option(help: "Run only this measure, for profiling.")
    var only: Measure?

    /// The measures, by the name `--only` takes.
    enum Measure: String, CaseIterable, ExpressibleByArgument {
        case churn
        case `switch`
        case deadlines
        case subordinates = "subordinate-uids"
    }

    func run() {
        let sizes = BenchSizes(quick: quick)
        var table = ResultTable()
        var sink = 0
        if runs(.churn) { sink &+= ChurnMeasure.run(sizes, into: &table) }
        if runs(.switch) { sink &+= SwitchMeasure.run(sizes, into: &table) }
        if runs(.deadlines) { sink &+= DeadlineMeasure.run(sizes, into: &table) }
        if runs(.subordinates) { sink &+= SubordinateMeasure.run(sizes, into: &table) }
        print("locd-core-bench\(quick ? " --quick" : ""): LocationCore alone, \(sink) actions")
        table.print()
    }

    private func runs(_ measure: Measure) -> Bool { only == nil || only == measure }
}
