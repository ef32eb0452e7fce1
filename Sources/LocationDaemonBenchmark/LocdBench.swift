import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `locd-bench`: the real daemon under load, started by the benchmark itself, driven over its socket
/// from many connections, beside an echo server that shows what the transport alone can do.
@main
struct LocdBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locd-bench",
        abstract: "Load benchmark of locd: churn against an echo server, fan-out, deadlines, memory, start-up, "
            + "durable decisions, idle wake-ups, GeoClue2 churn through locd-geoclue and the administrator under another "
            + "user's flood, focus changes on a real sway through locd-agent, in one table."
    )

    @Flag(
        help:
            "Every scenario at small size (under a minute): proves the benchmark runs; figures are not the targets' sizes."
    )
    var quick = false

    @Flag(help: "Print the figures as JSON after the table.")
    var json = false

    @Option(help: "The locd binary to run (default: the one beside locd-bench).")
    var locd: String?

    @Option(
        parsing: .upToNextOption,
        help: "Run only these scenarios: \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))."
    )
    var only: [Scenario] = []

    func run() throws {
        let sizes = quick ? BenchSizes.quick : BenchSizes.full
        let binary = try locateDaemon()
        raiseOpenFileLimit(to: max(sizes.fanOutConnections, sizes.largeFanOutConnections) + 4_096)
        let root = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let plan = Plan(
            sizes: sizes,
            binary: binary,
            root: root,
            selected: Set(only.isEmpty ? Scenario.allCases : only)
        )
        let report = Report()
        let failures = plan.run(into: report)

        let load =
            (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
            .joined(separator: " ") ?? "?"
        print("locd-bench\(quick ? " --quick (small sizes: targets are for the full run)" : ""), load average \(load)")
        print(report.table)
        for section in report.sections { print("\n" + section) }
        if json { print(report.json) }
        if !failures.isEmpty {
            for failure in failures { FileHandle.standardError.write(Data("locd-bench: \(failure)\n".utf8)) }
            throw ExitCode.failure
        }
    }

    /// `--locd`, or the `locd` built beside this executable (`.build/release`).
    private func locateDaemon() throws -> String {
        if let locd {
            guard FileManager.default.isExecutableFile(atPath: locd) else {
                throw ValidationError("--locd \(locd) is not an executable file")
            }
            return locd
        }
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let beside = here.appendingPathComponent("locd").path
        guard FileManager.default.isExecutableFile(atPath: beside) else {
            throw ValidationError(
                "no locd beside locd-bench at \(beside): build it (swift build -c release --product locd) or pass --locd PATH"
            )
        }
        return beside
    }

    /// 100,000 connections need as many descriptors, more than the usual soft limit of 1,024 and often more than the
    /// hard limit, which root may raise (up to `fs.nr_open`); locd inherits the limits and raises its own (F14).
    private func raiseOpenFileLimit(to wanted: Int) {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return }
        if limit.rlim_max < rlim_t(wanted) {
            var raised = limit
            raised.rlim_cur = rlim_t(wanted)
            raised.rlim_max = rlim_t(wanted)
            if setrlimit(resource, &raised) == 0 { return }
        }
        limit.rlim_cur = limit.rlim_max
        setrlimit(resource, &limit)
    }

    /// The open-file limit now (soft).
    static func openFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return Int(clamping: limit.rlim_cur)
    }

    private func makeTemporaryDirectory() throws -> String {
        var template = Array("/tmp/locd-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError.system("mkdtemp", errno) }
        return String(cString: made)
    }
}

/// The scenarios `--only` can pick.
enum Scenario: String, CaseIterable, ExpressibleByArgument {
    case startup, idle, churn, sustained, fanout, durable, deadlines, geoclue, fairness, focus
}
