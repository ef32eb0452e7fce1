import LocationCore

/// Create/invalidate churn against a large live population: core events per second.
enum ChurnMeasure {
    /// Adds the measure's row to `table`; returns the actions counted.
    static func run(_ sizes: BenchSizes, into table: inout ResultTable) -> Int {
        let churned = churn(apps: sizes.apps, sessions: sizes.population, pairs: sizes.churnPairs)
        table.rows.append(
            ResultTable.Row(
                measure: "create/invalidate churn, \(ResultTable.grouped(sizes.population)) live sessions, "
                    + "\(ResultTable.grouped(sizes.apps)) apps",
                result: "\(ResultTable.format(churned.eventsPerSecond)) events/s",
                target: "≥ 1,000,000 events/s",
                met: churned.eventsPerSecond >= 1_000_000
            )
        )
        return churned.sink
    }

    /// Events per second of `pairs` CreateSession + InvalidateSession against `sessions` live sessions of `apps`
    /// apps.
    static func churn(apps: Int, sessions: Int, pairs: Int) -> (eventsPerSecond: Double, sink: Int) {
        var driver = Driver(apps: apps)
        let clients = driver.launchAuthorizedApps(apps)
        for index in 0..<sessions { _ = driver.create(clients[index % apps]) }
        // Ids are numbered in order: learn the next one, then spell the ids as the shell would have decoded them.
        let probe = driver.create(clients[0])
        driver.call(clients[0], .invalidateSession(probe.description))
        let ids = (0..<pairs).map { SessionID(epoch: probe.epoch, number: probe.number + 1 + UInt64($0)).description }
        let start = Timing.clock.now
        for index in 0..<pairs {
            let client = clients[index % apps]
            driver.call(client, .createSession(.whenInUse, purposeKey: nil))
            driver.call(client, .invalidateSession(ids[index]))
        }
        let elapsed = Timing.nanoseconds(Timing.clock.now - start)
        guard driver.core.sessionIDs.count == sessions else {
            fatalError("churn left \(driver.core.sessionIDs.count)")
        }
        return (Double(2 * pairs) / elapsed * 1e9, driver.sink)
    }
}
