import Foundation

extension Plan {
    /// Scenario 10: the GeoClue churn against locd + locd-geoclue, GeoClue 2.6 and the trivial sd-bus service.
    func geoclue(_ report: Report) throws {
        let daemon = try daemon("geoclue-locd")
        // locd-geoclue speaks for each client's own process, so locd must take it as a broker (SEMANTICS I8, I13):
        // the user it runs as here, the benchmark's own, and its executable.
        let bridge = URL(fileURLWithPath: try GeoClueTarget.beside("locd-geoclue")).resolvingSymlinksInPath().path
        try FileManager.default.createDirectory(atPath: daemon.configPath + ".d", withIntermediateDirectories: true)
        try "[[broker]]\nuser = \"\(getuid())\"\nexecutable = \"\(bridge)\"\n".write(
            toFile: daemon.configPath + ".d/geoclue.toml",
            atomically: true,
            encoding: .utf8
        )
        // A manifest that lets any process of the churn's app id in: the clients are Python programs.
        try """
        id = "\(GeoClueScenario.appID)"
        identity = "any"
        NSLocationWhenInUseUsageDescription = "Sets the time zone from where you are"
        """.write(toFile: "\(daemon.directory)/apps.d/\(GeoClueScenario.appID).toml", atomically: true, encoding: .utf8)
        try daemon.start()
        defer { daemon.stop() }
        let driver = try ClientDriver()
        let admin = try driver.connect(path: daemon.socketPath)
        try driver.authorize(admin: admin, apps: [GeoClueScenario.appID], timeout: 30)
        let directory = root + "/geoclue"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let scenario = GeoClueScenario(rounds: sizes.geoclueRounds, seconds: sizes.geoclueSeconds, directory: directory)
        let result = try scenario.run(locd: daemon)
        try daemon.checkAlive("the GeoClue churn")
        guard let trivial = result.measured[.trivial], let floor = result.measured[.contract],
            let locd = result.measured[.locd]
        else {
            throw BenchError.failed("the GeoClue churn did not measure the trivial services and locd-geoclue")
        }
        let rounds = "\(scenario.rounds) round\(scenario.rounds == 1 ? "" : "s") of \(Format.seconds(scenario.seconds))"
        for target in GeoClueTarget.allCases {
            if let measured = result.measured[target] {
                report.add(
                    Figure(
                        scenario: "10 geoclue",
                        measure: "\(target.label): churn cycles, 1 client / \(scenario.clients) clients (\(rounds))",
                        display: "\(Format.count(measured.singleRate))/s / \(Format.count(measured.manyRate))/s "
                            + "(1 client p50 \(Format.milliseconds(measured.singleLatencies.seconds(at: 50))))",
                        value: measured.manyRate,
                        unit: "cycles/s (\(scenario.clients) clients)"
                    )
                )
            } else if let reason = result.skipped[target] {
                report.add(
                    Figure(
                        scenario: "10 geoclue",
                        measure: "\(target.label): not measured",
                        display: reason,
                        value: 0,
                        unit: "skipped"
                    )
                )
            }
        }
        addTargets(report, locd: locd, floor: floor, trivial: trivial, clients: scenario.clients)
        report.addSection(geoclueTable(result, scenario: scenario, trivial: trivial, floor: floor))
        report.addSection(geoclueCPUTable(result, scenario: scenario))
    }

    /// The ratios of locd + locd-geoclue that have targets (and the ratio to the trivial service, as context).
    private func addTargets(
        _ report: Report,
        locd: GeoClueScenario.Measured,
        floor: GeoClueScenario.Measured,
        trivial: GeoClueScenario.Measured,
        clients: Int
    ) {
        let throughput = locd.manyRate / floor.manyRate
        let latency = locd.singleLatencies.seconds(at: 50) / trivial.singleLatencies.seconds(at: 50)
        report.add(
            Figure(
                scenario: "10 geoclue",
                measure: "locd + locd-geoclue ÷ floor (trivial + GeoClue's signals), cycles/s with "
                    + "\(clients) clients",
                display: String(format: "%.2f", throughput) + Self.roundSpread(locd, floor),
                value: throughput,
                unit: "ratio",
                target: "≥ \(Self.floorTarget)",
                met: throughput >= Self.floorTarget
            )
        )
        // Context, with no target of its own: what the contract's signals and locd together cost against a service
        // that sends none.
        let againstTrivial = locd.manyRate / trivial.manyRate
        report.add(
            Figure(
                scenario: "10 geoclue",
                measure: "locd + locd-geoclue ÷ trivial, cycles/s with \(clients) clients",
                display: String(format: "%.2f", againstTrivial) + Self.roundSpread(locd, trivial),
                value: againstTrivial,
                unit: "ratio"
            )
        )
        report.add(
            Figure(
                scenario: "10 geoclue",
                measure: "locd + locd-geoclue ÷ trivial, p50 cycle with 1 client",
                display: String(format: "%.2f", latency),
                value: latency,
                unit: "ratio",
                target: "≤ \(Self.latencyTarget)",
                met: latency <= Self.latencyTarget
            )
        )
    }

    /// Issue targets for locd + locd-geoclue: cycles per second with every client, as a share of the floor service's
    /// (`locd-bench-trivial --signals`) in the same run; the 1-client p50 cycle, as a multiple of the trivial service's.
    static let floorTarget = 0.95
    static let latencyTarget = 1.25

    /// The lowest and highest of the rounds' own ratios of `measured` to `trivial` with every client, as
    /// " (rounds A–B)": a round measures both within seconds of each other, so the spread shows how far the
    /// machine's own changes move the ratio. Empty for a single round.
    static func roundSpread(_ measured: GeoClueScenario.Measured, _ trivial: GeoClueScenario.Measured) -> String {
        let ratios = zip(measured.manyRates, trivial.manyRates).map { $0 / $1 }
        guard ratios.count > 1, let low = ratios.min(), let high = ratios.max() else { return "" }
        return String(format: " (rounds %.2f–%.2f)", low, high)
    }

    /// Where the time of a cycle goes: CPU time per cycle, with every client running, of each process at work.
    private func geoclueCPUTable(_ result: GeoClueScenario.Result, scenario: GeoClueScenario) -> String {
        let headers = ["service", "service's processes", "locd", "dbus-daemon", "clients", "all"]
        let rows = GeoClueTarget.allCases.compactMap { target -> [String]? in
            guard let measured = result.measured[target], measured.manyCycles > 0 else { return nil }
            let share = measured.manyCPU
            func perCycle(_ seconds: Double) -> String {
                String(format: "%.0f µs", seconds / Double(measured.manyCycles) * 1e6)
            }
            return [
                target.label, perCycle(share.service), target == .locd ? perCycle(share.locd) : "",
                perCycle(share.bus), perCycle(share.clients),
                perCycle(share.service + share.locd + share.bus + share.clients),
            ]
        }
        return "CPU time per cycle with \(scenario.clients) clients (user + system, from /proc):\n"
            + Report.table(headers, rows)
    }

    /// The scenario's own table: one row a service, the ratios to the trivial service, the targets.
    private func geoclueTable(
        _ result: GeoClueScenario.Result,
        scenario: GeoClueScenario,
        trivial: GeoClueScenario.Measured,
        floor: GeoClueScenario.Measured
    )
        -> String
    {
        let many = "\(scenario.clients) clients"
        let headers = [
            "service", "1 client", many, "1-client cycle p50 (p99)", "\(many) ÷ floor", "\(many) ÷ trivial",
            "p50 ÷ trivial",
        ]
        var rows: [[String]] = []
        for target in GeoClueTarget.allCases {
            guard let measured = result.measured[target] else {
                let reason = "skipped: " + (result.skipped[target] ?? "not measured")
                rows.append([target.label, reason] + Array(repeating: "", count: headers.count - 2))
                continue
            }
            let againstFloor = measured.manyRate / floor.manyRate
            let throughput = measured.manyRate / trivial.manyRate
            let latency = measured.singleLatencies.seconds(at: 50) / trivial.singleLatencies.seconds(at: 50)
            let marks =
                target == .locd
                ? (againstFloor >= Self.floorTarget ? " ✓" : " ✗", latency <= Self.latencyTarget ? " ✓" : " ✗")
                : ("", "")
            rows.append([
                target.label,
                "\(Format.count(measured.singleRate))/s",
                "\(Format.count(measured.manyRate))/s",
                "\(Format.milliseconds(measured.singleLatencies.seconds(at: 50))) "
                    + "(\(Format.milliseconds(measured.singleLatencies.seconds(at: 99))))",
                String(format: "%.2f", againstFloor) + marks.0
                    + (target == .contract ? "" : Self.roundSpread(measured, floor)),
                String(format: "%.2f", throughput) + (target == .trivial ? "" : Self.roundSpread(measured, trivial)),
                String(format: "%.2f", latency) + marks.1,
            ])
        }
        let title = """
            GeoClue churn: CreateClient → Set DesktopId → Set RequestedAccuracyLevel → Start → Stop → DeleteClient, \
            from Python GI clients that watch each client through a GDBusProxy, on one private bus, \(scenario.rounds) alternating round\(scenario.rounds == 1 ? "" : "s") \
            of \(Format.seconds(scenario.seconds)) per service and client count. The floor is the trivial service with \
            GeoClue's signals, a client's sent to its owner alone (SEMANTICS G4). Targets for locd + locd-geoclue: \
            \(many) ≥ \(Self.floorTarget) × the floor, 1-client p50 ≤ \(Self.latencyTarget) × trivial.
            """
        return title + "\n" + Report.table(headers, rows)
    }
}
