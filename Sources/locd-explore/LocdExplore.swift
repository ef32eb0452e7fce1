import ArgumentParser
import Foundation
import LocationExplorer

/// `locd-explore`: every event sequence of a small world around the core, to a depth, against the rules.
@main
struct LocdExplore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locd-explore",
        abstract: "Explore every event sequence of apps, clients and users around locd's core, to a depth.",
        discussion: """
            Breadth-first, each canonical state once, every invariant checked after every event, each level \
            expanded on --threads threads with the same result as on one. Prints the figures and, if an invariant \
            fails, the shortest event sequence that breaks it (exit status 1).
            """
    )

    @Option(help: "Apps with a manifest, alternately precise and approximate.") var apps = 2
    @Option(help: "Processes that may be connected at once.") var clients = 3
    @Option(help: "Users who run the same apps.") var users = 2
    @Option(help: "Events on the longest sequence.") var depth = 8
    @Option(help: "Threads that expand each level (default: one per processor); the result does not depend on it.")
    var threads: Int?
    @Option(help: "Write a counterexample as a Swift Testing regression test to this file.")
    var saveTest: String?
    @Flag(help: "Print each level's distinct states as it is done.") var verbose = false

    func run() throws {
        let size = ExplorerSize(apps: apps, clients: clients, users: users, depth: depth)
        let threads = max(1, threads ?? ProcessInfo.processInfo.activeProcessorCount)
        print("exploring \(size) on \(threads) thread\(threads == 1 ? "" : "s")")
        let start = Date()
        let report = Explorer(size: size, threads: threads).explore { level, distinct in
            if verbose { print("  depth \(level): \(distinct) distinct states, \(elapsed(since: start)) s") }
        }
        let seconds = Date().timeIntervalSince(start)
        print("states explored: \(report.statesExplored)")
        print("distinct states: \(report.distinctStates)")
        print("states/s:        \(Int(Double(report.statesExplored) / max(seconds, 1e-9)))")
        print("depth reached:   \(report.depthReached)")
        print("time:            \(elapsed(since: start)) s")
        if let memory = Self.peakMemory() { print("max memory:      \(memory / 1024) MiB") }
        guard let counterexample = report.counterexample else {
            print("no counterexample")
            return
        }
        print(counterexample)
        if let saveTest {
            let text = counterexample.regressionTest(named: "explorerCounterexample", size: size)
            try text.write(toFile: saveTest, atomically: true, encoding: .utf8)
            print("saved as a regression test: \(saveTest)")
        }
        throw ExitCode(1)
    }

    private func elapsed(since start: Date) -> String {
        String(format: "%.1f", Date().timeIntervalSince(start))
    }

    /// The process's peak resident set (`VmHWM`), in KiB.
    static func peakMemory() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }
}
