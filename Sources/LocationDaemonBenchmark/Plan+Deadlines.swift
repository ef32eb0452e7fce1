extension Plan {
    /// Scenarios 4 (both shapes of departure), 5 with sessions, and 6 with stored sessions, on one daemon.
    func deadlines(_ report: Report) throws {
        let scenario = DeadlineScenario(
            sessions: sizes.deadlineSessions,
            apps: sizes.deadlineApps,
            relaunchWindow: sizes.relaunchWindow
        )
        let daemon = try daemon("deadlines", relaunchWindow: sizes.relaunchWindow)
        try daemon.start()
        defer { daemon.stop() }
        let sessions = Format.count(Double(sizes.deadlineSessions))
        let atOnce = try scenario.runAtOnce(daemon)
        report.add(
            Figure(
                scenario: "5 memory",
                measure: "locd RSS, \(sessions) sessions across \(sizes.deadlineApps) apps",
                display: Format.mebibytes(atOnce.residentBytes),
                value: Double(atOnce.residentBytes) / 1_048_576,
                unit: "MiB",
                target: "< 256 MiB",
                met: atOnce.residentBytes < 256 << 20
            )
        )
        let spread = try scenario.runSpread(daemon)
        let spreadP99 = spread.lateness.seconds(at: 99)
        let clients = sizes.deadlineSessions / DeadlineScenario.spreadSessionsPerClient
        report.add(
            Figure(
                scenario: "4a deadlines",
                measure: "lateness of lingering expiry, \(sessions) sessions, \(Format.count(Double(clients))) "
                    + "clients leaving over \(Format.seconds(sizes.relaunchWindow))",
                display: Self.lateness(spread),
                value: spreadP99 * 1000,
                unit: "ms (p99)",
                target: "p99 < 2 ms",
                met: spreadP99 < 0.002 && spread.early == 0
            )
        )
        let worst = atOnce.lateness.maximum
        report.add(
            Figure(
                scenario: "4b deadlines",
                measure: "lateness of lingering expiry, \(sessions) sessions, clients gone at once",
                display: Self.lateness(atOnce),
                value: worst * 1000,
                unit: "ms (max)",
                target: "max < 250 ms",
                met: worst < 0.25 && atOnce.early == 0
            )
        )
        for (name, latencies) in [("GetAuthorization", atOnce.getAuthorization), ("Admin.Status", atOnce.status)] {
            let p99 = latencies.seconds(at: 99)
            report.add(
                Figure(
                    scenario: "4b deadlines",
                    measure: "another client's \(name) while they expire (\(latencies.count) calls)",
                    display: latencies.summary([50, 99]) + ", max \(Format.milliseconds(latencies.maximum))",
                    value: p99 * 1000,
                    unit: "ms (p99)",
                    target: "p99 < 10 ms",
                    met: latencies.count > 0 && p99 < 0.01
                )
            )
        }
        report.add(
            Figure(
                scenario: "4b deadlines",
                measure: "locd CPU from the disconnect to the last expiry",
                display: String(
                    format: "%.2f s CPU over %.2f s (locd-bench itself: %.2f s CPU)",
                    atOnce.cpuSeconds,
                    atOnce.wallSeconds,
                    atOnce.benchCPUSeconds
                ),
                value: atOnce.cpuSeconds,
                unit: "s"
            )
        )
        try restart(scenario, daemon, report)
    }

    /// "p50 …, p99 …, max …", and the sessions stamped early, if any.
    private static func lateness(_ result: DeadlineScenario.Result) -> String {
        result.lateness.summary([50, 99]) + ", max \(Format.milliseconds(result.lateness.maximum))"
            + (result.early > 0
                ? ", \(result.early) stamped up to \(Format.milliseconds(result.earliest)) EARLY" : "")
    }

    /// Scenario 6 with stored sessions.
    private func restart(_ scenario: DeadlineScenario, _ daemon: DaemonUnderTest, _ report: Report) throws {
        let restart = try scenario.restart(daemon)
        report.add(
            Figure(
                scenario: "6 start-up",
                measure: "exec → READY=1, \(Format.count(Double(restart.restored))) stored sessions",
                display: "\(Format.milliseconds(restart.seconds)) (locd CPU by then: "
                    + "\(Format.milliseconds(restart.cpuSeconds)))",
                value: restart.seconds * 1000,
                unit: "ms",
                target: "< 250 ms",
                met: restart.seconds < 0.25
            )
        )
        if restart.restored != sizes.deadlineSessions {
            throw BenchError.failed("locd restored \(restart.restored) of \(sizes.deadlineSessions) stored sessions")
        }
    }
}
