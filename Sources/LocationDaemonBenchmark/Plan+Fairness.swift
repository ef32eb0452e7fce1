import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Plan {
    /// Scenario 11: root's `Admin.Status` while `nobody` pipelines on hundreds of connections without reading (F19).
    func fairness(_ report: Report) throws {
        let scenario = "11 fairness"
        guard getuid() == 0 else {
            report.add(
                Figure(
                    scenario: scenario,
                    measure: "root's Admin.Status under nobody's flood",
                    display: "not run: the flood runs as nobody through setpriv, which needs root",
                    value: 0,
                    unit: "ms"
                )
            )
            return
        }
        // nobody must pass through to the socket: the benchmark's own directory is private.
        var template = Array("/tmp/locd-bench-fairness-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError.system("mkdtemp", errno) }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o711)
        let daemon = try DaemonUnderTest(
            binary: binary,
            directory: directory + "/locd",
            relaunchWindow: 10,
            maximumConnections: 4_096
        )
        chmod(daemon.directory, 0o711)
        try daemon.start()
        defer { daemon.stop() }
        let result = try FairnessScenario(
            connections: sizes.fairnessConnections,
            samples: sizes.fairnessSamples,
            directory: directory
        ).run(daemon)
        let flood = "nobody pipelining on \(sizes.fairnessConnections) connections without reading"
        let waits = result.waits.sorted()
        for (what, latencies) in [
            ("a fresh connection, as locctl status", result.fresh), ("root's open connection", result.open),
        ] {
            report.add(
                Figure(
                    scenario: scenario,
                    measure: "Admin.Status on \(what), \(flood) (\(sizes.fairnessSamples) calls)",
                    display: latencies.summary([50, 99]) + ", max \(Format.milliseconds(latencies.maximum))",
                    value: latencies.maximum * 1000,
                    unit: "ms (max)",
                    target: "< 100 ms",
                    met: latencies.maximum < 0.1
                )
            )
        }
        report.add(
            Figure(
                scenario: scenario,
                measure: "calls locd ran between root's replies, \(flood)",
                display: "median \(waits[waits.count / 2]), max \(waits.last ?? 0)",
                value: Double(waits.last ?? 0),
                unit: "calls (max)"
            )
        )
    }
}
