import LocationCore

/// One flip of the global switch, which re-evaluates and reports every session: the median of several.
enum SwitchMeasure {
    /// Adds the measure's rows, off and on, to `table`; returns the actions counted.
    static func run(_ sizes: BenchSizes, into table: inout ResultTable) -> Int {
        let flips = globalSwitch(apps: sizes.apps, sessions: sizes.population, flips: sizes.flips)
        // The target is for 100k sessions; a quick run scales it to its population.
        let target = 20.0 / Double(sizes.scale)
        for (name, milliseconds) in [("off", flips.off), ("on", flips.on)] {
            table.rows.append(
                ResultTable.Row(
                    measure: "SetLocationServices(\(name == "on")), \(ResultTable.grouped(sizes.population)) "
                        + "sessions + streams (median)",
                    result: "\(ResultTable.format(milliseconds, decimals: 2)) ms, "
                        + "\(ResultTable.grouped(flips.messages)) diagnostics sent",
                    target: "< \(ResultTable.format(target, decimals: 0)) ms",
                    met: milliseconds < target
                )
            )
        }
        return flips.sink
    }

    /// Milliseconds of one `SetLocationServices(false)` and one `(true)`, each session watched by a diagnostics
    /// stream.
    static func globalSwitch(
        apps: Int,
        sessions: Int,
        flips: Int
    ) -> (off: Double, on: Double, messages: Int, sink: Int) {
        var driver = Driver(apps: apps)
        let clients = driver.launchAuthorizedApps(apps)
        for index in 0..<sessions {
            let client = clients[index % apps]
            let id = driver.create(client)
            driver.call(client, .sessionDiagnostics(id.description))
        }
        let admin = driver.connect()
        var off: [Double] = []
        var on: [Double] = []
        var messages = 0
        for _ in 0..<flips {
            for enabled in [false, true] {
                let start = Timing.clock.now
                let actions = driver.call(admin, .setLocationServices(enabled))
                let elapsed = Timing.nanoseconds(Timing.clock.now - start) / 1e6
                if enabled { on.append(elapsed) } else { off.append(elapsed) }
                messages = actions.reduce(0) { count, action in
                    if case .emit(_, .diagnostic) = action { count + 1 } else { count }
                }
            }
        }
        return (Timing.median(off), Timing.median(on), messages, driver.sink)
    }
}
