import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Plan {
    /// Scenario 12: focus changes in a real sway session reaching locd's state through locd-agent, and locd-agent's
    /// wake-ups while the desktop is idle. Where the desktop cannot run (not root, no sway), the rows say why and
    /// the run does not fail.
    func focus(_ report: Report) throws {
        let scenario = "12 focus"
        let agentPath = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("locd-agent")
            .path
        if let reason = FocusDesktop.unavailableReason(agent: agentPath) {
            report.add(
                Figure(
                    scenario: scenario,
                    measure: "sway focus → locd's state",
                    display: "not run: " + reason,
                    value: 0,
                    unit: "ms"
                )
            )
            return
        }
        // The desktop's user must pass through to locd's socket: the benchmark's own directory is private.
        var template = Array("/tmp/locd-bench-focus-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError.system("mkdtemp", errno) }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o711)
        let daemon = try DaemonUnderTest(
            binary: binary,
            directory: directory + "/locd",
            relaunchWindow: 10,
            maximumConnections: 1_024
        )
        chmod(daemon.directory, 0o711)
        try daemon.start()
        defer { daemon.stop() }
        let watch = try StreamSocket(path: daemon.socketPath)
        try watch.send(Wire.watch)
        let account = try BenchAccount()
        defer { account.remove() }
        let appIDs = (1...sizes.focusWindows).map { "org.example.bench.window\($0)" }
        let result = try withExtendedLifetime(watch) {
            let desktop = try FocusDesktop(
                uid: account.uid,
                gid: account.gid,
                directory: directory + "/desktop",
                appIDs: appIDs,
                locdSocket: daemon.socketPath,
                agentPath: agentPath
            )
            return try FocusScenario(moves: sizes.focusMoves, idleSeconds: sizes.focusIdleSeconds)
                .run(desktop, watch: watch, daemon: daemon)
        }
        let p99 = result.latencies.seconds(at: 99)
        report.add(
            Figure(
                scenario: scenario,
                measure: "sway focus command → Admin.Watch's appStateChanged (background -> foreground) via locd-agent "
                    + "(\(sizes.focusMoves) moves among \(sizes.focusWindows) foot windows)",
                display: result.latencies.summary([50, 99]) + ", max \(Format.milliseconds(result.latencies.maximum))",
                value: p99 * 1000,
                unit: "ms (p99)",
                target: "p99 < 50 ms",
                met: p99 < 0.05
            )
        )
        let from =
            result.settled.map { String(format: "from %.1f s after the last move, once quiet", $0) }
            ?? "never quiet"
        report.add(
            Figure(
                scenario: scenario,
                measure: "locd-agent's context switches, desktop idle (\(Format.seconds(result.idleSeconds)) \(from))",
                display: Format.count(Double(result.agentSwitches)),
                value: Double(result.agentSwitches),
                unit: "switches",
                target: "0",
                met: result.agentSwitches == 0
            )
        )
    }
}
