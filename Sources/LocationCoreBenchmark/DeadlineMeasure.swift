import LocationCore

/// Expiring lingering sessions one deadline at a time, at growing populations: the cost per event, which must
/// stay flat.
enum DeadlineMeasure {
    /// Adds one row per population to `table`; returns the actions counted.
    static func run(_ sizes: BenchSizes, into table: inout ResultTable) -> Int {
        var sink = 0
        var perEvent: [(sessions: Int, nanoseconds: Double)] = []
        for sessions in sizes.deadlinePopulations {
            let result = deadlines(
                apps: sessions / 100,
                sessions: sessions,
                rounds: 3,
                expiries: min(sessions / 4, 10_000)
            )
            sink &+= result.sink
            perEvent.append((sessions, result.perEvent))
        }
        let base = perEvent.first?.nanoseconds ?? 0
        for (sessions, nanoseconds) in perEvent {
            let growth = nanoseconds / base
            table.rows.append(
                ResultTable.Row(
                    measure: "deadline wake-up expiring 1 of \(ResultTable.grouped(sessions)) lingering sessions",
                    result: "\(ResultTable.format(nanoseconds)) ns/event (×\(ResultTable.format(growth, decimals: 2)))",
                    target: "flat: ≤ ×2 the 1,000 case",
                    met: growth <= 2
                )
            )
        }
        return sink
    }

    /// Nanoseconds per timer wake-up that expires one lingering session, among `sessions` lingering ones.
    ///
    /// Each session has its own connection, closed at its own instant, so every deadline is distinct; one
    /// more connection per app keeps the app running, so only lingering deadlines are due. The median of
    /// `rounds` rounds of `expiries` wake-ups each.
    static func deadlines(apps: Int, sessions: Int, rounds: Int, expiries: Int) -> (perEvent: Double, sink: Int) {
        var driver = Driver(apps: apps)
        _ = driver.launchAuthorizedApps(apps)
        var owners: [ClientID] = []
        for index in 0..<sessions {
            let client = driver.connect()
            driver.call(client, .hello(appID: Driver.appID(index % apps), state: nil))
            _ = driver.create(client)
            owners.append(client)
        }
        var timer: Instant?
        for client in owners {
            driver.now = driver.now.adding(.seconds(0.000_001))
            for case .armTimer(let next) in driver.send(.disconnected(client)) { timer = next }
        }
        var expired = 0
        var perEvent: [Double] = []
        for _ in 0..<rounds {
            var count = 0
            let start = Timing.clock.now
            while count < expiries, let due = timer {
                driver.now = due
                for case .armTimer(let next) in driver.send(.deadlineReached) { timer = next }
                count += 1
            }
            perEvent.append(Timing.nanoseconds(Timing.clock.now - start) / Double(count))
            expired += count
        }
        guard driver.core.sessionIDs.count == sessions - expired else {
            fatalError("a wake-up expired more than one")
        }
        return (Timing.median(perEvent), driver.sink)
    }
}
