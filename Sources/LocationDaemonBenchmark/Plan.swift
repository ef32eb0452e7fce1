import Foundation

/// The order the scenarios run in, and the daemons they share: one daemon for idle, churn, fan-out and
/// durable decisions; another for deadlines and the restart with stored sessions; fresh ones for start-up.
struct Plan {
    var sizes: BenchSizes
    var binary: String
    var root: String
    var selected: Set<Scenario>

    /// Runs the selected scenarios; returns why any could not run.
    func run(into report: Report) -> [String] {
        var failures: [String] = []
        func attempt(_ name: String, _ body: () throws -> Void) {
            FileHandle.standardError.write(Data("\(name)…\n".utf8))
            do { try body() } catch { failures.append("\(name): \(error)") }
        }
        if selected.contains(.startup) { attempt("start-up", { try startups(report) }) }
        if !selected.isDisjoint(with: [.idle, .churn, .sustained, .fanout, .durable]) {
            attempt("shared daemon", { try sharedDaemon(report, attempt: attempt) })
        }
        if selected.contains(.fanout) { attempt("large fan-out", { try largeFanOut(report) }) }
        if selected.contains(.deadlines) { attempt("deadlines", { try deadlines(report) }) }
        if selected.contains(.geoclue) { attempt("geoclue", { try geoclue(report) }) }
        if selected.contains(.fairness) { attempt("fairness", { try fairness(report) }) }
        if selected.contains(.focus) { attempt("focus", { try focus(report) }) }
        return failures
    }

    func daemon(_ name: String, relaunchWindow: Double = 10, connections: Int? = nil) throws -> DaemonUnderTest {
        try DaemonUnderTest(
            binary: binary,
            directory: "\(root)/\(name)",
            relaunchWindow: relaunchWindow,
            maximumConnections: (connections ?? sizes.fanOutConnections) + 1_024
        )
    }

    /// Scenario 6, empty store: fresh daemons, exec to `READY=1`.
    private func startups(_ report: Report) throws {
        var times: [Double] = []
        for index in 0..<sizes.startups {
            let daemon = try daemon("startup-\(index)")
            times.append(try daemon.start().seconds)
            daemon.stop()
        }
        times.sort()
        let median = times[times.count / 2]
        report.add(
            Figure(
                scenario: "6 start-up",
                measure: "exec → READY=1, empty store (median of \(times.count))",
                display: "\(Format.milliseconds(median)) (max \(Format.milliseconds(times.last ?? 0)))",
                value: median * 1000,
                unit: "ms",
                target: "< 100 ms",
                met: median < 0.1
            )
        )
    }

    private func sharedDaemon(_ report: Report, attempt: (String, () throws -> Void) -> Void) throws {
        let daemon = try daemon("shared")
        try daemon.start()
        defer { daemon.stop() }
        report.add(
            Figure(
                scenario: "5 memory",
                measure: "locd RSS, idle",
                display: Format.mebibytes(try daemon.stats.residentBytes()),
                value: Double(try daemon.stats.residentBytes()) / 1_048_576,
                unit: "MiB"
            )
        )
        if selected.contains(.idle) {
            attempt("idle") {
                let idle = try IdleScenario(seconds: sizes.idleSeconds).run(daemon)
                let from =
                    idle.settled.map { String(format: "from %.1f s after READY, once quiet", $0) }
                    ?? "never quiet"
                report.add(
                    Figure(
                        scenario: "8 idle",
                        measure: "wake-ups of locd per minute, idle (\(Format.seconds(sizes.idleSeconds)) \(from); "
                            + "\(idle.threads) threads)",
                        display: Format.count(idle.perMinute),
                        value: idle.perMinute,
                        unit: "per minute",
                        target: "0 (no watchdog set)",
                        met: idle.perMinute < 0.5
                    )
                )
            }
        }
        if selected.contains(.churn) { attempt("churn") { try churn(daemon, report) } }
        if selected.contains(.sustained) { attempt("sustained churn") { try sustained(daemon, report) } }
        if selected.contains(.fanout) {
            attempt("fan-out") {
                let result = try FanOutScenario(connections: sizes.fanOutConnections, flips: sizes.fanOutFlips).run(
                    daemon
                )
                let p99 = result.flipTimes.seconds(at: 99)
                report.add(
                    Figure(
                        scenario: "3 fan-out",
                        measure:
                            "services flip → last of \(Format.count(Double(sizes.fanOutConnections))) streams read it (\(sizes.fanOutFlips) flips)",
                        display: result.flipTimes.summary([50, 99]),
                        value: p99 * 1000,
                        unit: "ms (p99)",
                        target: "p99 < 100 ms",
                        met: p99 < 0.1
                    )
                )
                report.add(
                    Figure(
                        scenario: "5 memory",
                        measure: "locd RSS, \(Format.count(Double(sizes.fanOutConnections))) clients streaming",
                        display: Format.mebibytes(result.residentBytes),
                        value: Double(result.residentBytes) / 1_048_576,
                        unit: "MiB",
                        target: "< 256 MiB",
                        met: result.residentBytes < 256 << 20
                    )
                )
            }
        }
        if selected.contains(.durable) {
            attempt("durable decisions") {
                let result = try DurableScenario(calls: sizes.durableCalls).run(daemon)
                report.add(
                    Figure(
                        scenario: "7 durable",
                        measure: "Admin.SetAuthorization, one at a time, each fsynced (\(sizes.durableCalls) calls)",
                        display: "\(Format.count(result.rate))/s (\(result.latencies.summary([50, 99])))",
                        value: result.rate,
                        unit: "calls/s",
                        target: "≥ 1,000/s",
                        met: result.rate >= 1_000
                    )
                )
            }
            attempt("durable decisions at once") {
                let administrators = sizes.durableAdministrators
                let result = try DurableScenario(calls: sizes.durableConcurrentCalls, administrators: administrators)
                    .run(daemon)
                report.add(
                    Figure(
                        scenario: "7 durable",
                        measure: "Admin.SetAuthorization, \(administrators) administrators at once, each fsynced "
                            + "(\(Format.count(Double(sizes.durableConcurrentCalls))) calls)",
                        display: "\(Format.count(result.rate))/s (\(result.latencies.summary([50, 99])))",
                        value: result.rate,
                        unit: "calls/s",
                        target: "≥ 20,000/s",
                        met: result.rate >= 20_000
                    )
                )
            }
        }
    }

    /// Scenarios 1 and 2.
    private func churn(_ daemon: DaemonUnderTest, _ report: Report) throws {
        let scenario = ChurnScenario(clients: sizes.churnClients, seconds: sizes.churnSeconds)
        let server = try EchoServer(path: "\(root)/echo.sock")
        defer { server.shutdown() }
        let (locd, echo) = try scenario.run(daemon, echoPath: "\(root)/echo.sock")
        let clients =
            "\(sizes.churnClients) clients, \(Format.seconds(sizes.churnSeconds)) in \(scenario.rounds) rounds"
        report.add(
            Figure(
                scenario: "1 churn",
                measure: "CreateSession + InvalidateSession round trips, \(clients)",
                display: "\(Format.count(locd.rate))/s (\(locd.latencies.summary()))",
                value: locd.rate,
                unit: "round trips/s"
            )
        )
        report.add(
            Figure(
                scenario: "2 transport",
                measure: "the same bytes against a NIO echo server, \(clients)",
                display: "\(Format.count(echo.rate))/s (\(echo.latencies.summary()))",
                value: echo.rate,
                unit: "round trips/s"
            )
        )
        let ratio = locd.rate / echo.rate
        report.add(
            Figure(
                scenario: "1÷2 ratio",
                measure: "churn ÷ echo",
                display: String(format: "%.2f", ratio),
                value: ratio,
                unit: "ratio",
                target: "≥ 0.75",
                met: ratio >= 0.75
            )
        )
    }

    /// Scenario 9: the store's log and locd's memory under maximum churn held for a long time.
    private func sustained(_ daemon: DaemonUnderTest, _ report: Report) throws {
        let scenario = SustainedChurnScenario(clients: sizes.churnClients, seconds: sizes.sustainedSeconds)
        let result = try scenario.run(daemon, logPath: daemon.directory + "/state/locd.sqlite-wal")
        try daemon.checkAlive("sustained churn")
        let held =
            "\(sizes.churnClients) clients, \(Format.seconds(sizes.sustainedSeconds)), "
            + "\(Format.count(result.rate)) round trips/s"
        // The log's bound (R5): 4,000 pages of 4 KiB with their frame headers, and half again for the frames
        // written while the checkpoint that starts it over runs.
        let logBound = 4_000 * (4_096 + 24) * 3 / 2
        report.add(
            Figure(
                scenario: "9 sustained",
                measure: "locd.sqlite-wal size under maximum churn (\(held))",
                display: result.log.summary,
                value: Double(result.log.largest) / 1_048_576,
                unit: "MiB (max)",
                target: "< 23.6 MiB, flat",
                met: result.log.largest < logBound
            )
        )
        // Flat: no more than a quarter above the first sample taken after the first tenth of the run.
        let settled = result.resident.samples.dropFirst(max(1, result.resident.samples.count / 10)).first ?? 0
        report.add(
            Figure(
                scenario: "9 sustained",
                measure: "locd RSS under maximum churn (\(held))",
                display: result.resident.summary,
                value: Double(result.resident.largest) / 1_048_576,
                unit: "MiB (max)",
                target: "flat (max < 1.25 × early)",
                met: Double(result.resident.largest) < Double(settled) * 1.25
            )
        )
    }

    /// Scenario 3 at ten times the size, on a daemon of its own: each connection is a descriptor in locd and one
    /// here, which the open-file limits must allow (`LocdBench` raises them as far as it may).
    private func largeFanOut(_ report: Report) throws {
        let connections = sizes.largeFanOutConnections
        let limit = LocdBench.openFileLimit()
        guard limit >= connections + 2_048 else {
            throw BenchError.failed(
                "the open-file limit is \(limit), under the \(connections + 2_048) descriptors \(connections) streams need: "
                    + "run as root (which may raise it) or raise it with ulimit -Hn"
            )
        }
        let daemon = try daemon("fanout-large", connections: connections)
        try daemon.start()
        defer { daemon.stop() }
        let result = try FanOutScenario(connections: connections, flips: sizes.largeFanOutFlips).run(daemon)
        let p99 = result.flipTimes.seconds(at: 99)
        let count = Format.count(Double(connections))
        report.add(
            Figure(
                scenario: "3 fan-out",
                measure: "services flip → last of \(count) streams read it (\(sizes.largeFanOutFlips) flips)",
                display: result.flipTimes.summary([50, 99]),
                value: p99 * 1000,
                unit: "ms (p99)",
                target: "p99 < 250 ms",
                met: p99 < 0.25
            )
        )
        report.add(
            Figure(
                scenario: "5 memory",
                measure: "locd RSS, \(count) clients streaming",
                display: Format.mebibytes(result.residentBytes),
                value: Double(result.residentBytes) / 1_048_576,
                unit: "MiB"
            )
        )
    }
}
