import LocationProtocol

/// Scenarios 4, 5 (with many sessions) and 6 (with many stored sessions): sessions across many apps whose
/// clients disconnect, each session lingering for the relaunch window and then expiring: (a) clients that leave
/// one after the other over the window, as real ones do, and (b) clients that all leave at once, while another
/// client and an administrator keep calling (SEMANTICS F21: the burst is handled in batches, the loop answering
/// between them).
struct DeadlineScenario {
    var sessions: Int
    var apps: Int
    var relaunchWindow: Double

    struct Result {
        /// How long after its deadline each session's `sessionEnded` event reached the benchmark.
        var lateness: Latencies
        /// Sessions whose end was stamped more than 1 ms before their deadline (must be none), and the
        /// earliest such stamp, in seconds before the deadline.
        var early: Int
        var earliest: Double
        /// `locd`'s CPU time from the disconnect until the last session ended, and the wall time it spans.
        var cpuSeconds: Double
        var wallSeconds: Double
        /// The benchmark's own CPU time over the same span: whether reading the events could have held it up.
        var benchCPUSeconds: Double
        /// `locd`'s resident memory holding every session.
        var residentBytes: Int
        /// At once only: a client's `GetAuthorization` and an administrator's `Status`, sent while the
        /// expiries were due (from the first deadline to the last end), each from its send to its reply.
        var getAuthorization = Latencies()
        var status = Latencies()
    }

    /// Sessions per client when clients leave over the window: a real client holds a few.
    static let spreadSessionsPerClient = 10

    private var appIDs: [String] { (0..<apps).map { "bench.deadline.\($0)" } }

    /// Connects `clientsPerApp` clients per app, pre-authorizes the apps from `admin` (once), and creates the
    /// sessions, spread evenly over the clients and pipelined.
    func fill(
        _ daemon: DaemonUnderTest,
        driver: ClientDriver,
        admin: Int?,
        clientsPerApp: Int = 1
    ) throws -> [Int] {
        let ids = appIDs
        let count = apps * clientsPerApp
        let clients = try driver.helloClients(path: daemon.socketPath, count: count, timeout: 120) { ids[$0 % apps] }
        if let admin { try driver.authorize(admin: admin, apps: ids, timeout: 600) }
        var calls: [(connection: Int, bytes: [UInt8])] = []
        calls.reserveCapacity(sessions)
        for index in 0..<sessions { calls.append((clients[index % count], Wire.createSession)) }
        try driver.exchange(calls, timeout: 600, what: "CreateSession")
        try daemon.checkAlive("creating \(sessions) sessions")
        return clients
    }

    /// (b) Fills the daemon, disconnects every client at once, and reads every session's linger and end from an
    /// `Admin.Watch` stream, while a probe client's `GetAuthorization` and the administrator's `Status` are timed.
    func runAtOnce(_ daemon: DaemonUnderTest) throws -> Result {
        let driver = try ClientDriver()
        let admin = try driver.connect(path: daemon.socketPath)
        let clients = try fill(daemon, driver: driver, admin: admin)
        let resident = try daemon.stats.residentBytes()
        let probe = try driver.helloClients(path: daemon.socketPath, count: 1, timeout: 30) { _ in "bench.probe" }[0]
        let administrator = try driver.connect(path: daemon.socketPath)
        let watch = try ExpiryWatch(
            driver: driver,
            socketPath: daemon.socketPath,
            sessions: sessions,
            relaunchWindow: relaunchWindow
        )
        var probes = [
            // An app asks often. `Admin.Status` reads every session and app (about 2.5 ms with 100,000 sessions, perf):
            // asked every 5 ms it took half of locd's loop from the benchmark's own deadlines, and a person's tool asks
            // it far more rarely than every 20 ms.
            Probe(connection: probe, call: Wire.call(AppMethod.getAuthorization.name), interval: 0.001),
            Probe(connection: administrator, call: Wire.call(AdminMethod.status.name), interval: 0.02),
        ]
        driver.onFrame = { connection, frame in
            if try watch.handle(connection, frame, receivedAt: driver.receivedAt) { return }
            if let index = probes.firstIndex(where: { $0.connection == connection }) {
                try probes[index].replied(frame, receivedAt: driver.receivedAt)
            }
        }
        driver.onClose = { connection in
            if connection == watch.connection { throw BenchError.failed("locd closed the Admin.Watch stream") }
        }
        try watch.waitOpen(admin: admin, driver: driver)

        let cpuBefore = try daemon.stats.cpuSeconds()
        let benchBefore = ProcessStats.ownCPUSeconds()
        let disconnected = Clock.now
        for client in clients { driver.close(client) }
        let until = Clock.now + relaunchWindow + 300
        while watch.ended.count < sessions {
            guard Clock.now < until else {
                throw BenchError.failed(
                    "timed out waiting for \(sessions) sessions to end (\(watch.ended.count) so far)"
                )
            }
            for index in probes.indices { try probes[index].askIfDue(driver) }
            try driver.pump(milliseconds: 1)
        }
        let cpuAfter = try daemon.stats.cpuSeconds()
        let benchAfter = ProcessStats.ownCPUSeconds()
        try daemon.checkAlive("the deadline scenario")
        let outcome = try watch.outcome()
        let burst = outcome.firstDeadline...(Clock.unixTime)
        return Result(
            lateness: outcome.lateness,
            early: outcome.early,
            earliest: outcome.earliest,
            cpuSeconds: cpuAfter - cpuBefore,
            wallSeconds: watch.lastEnded - disconnected,
            benchCPUSeconds: benchAfter - benchBefore,
            residentBytes: resident,
            getAuthorization: probes[0].latencies(sentIn: burst),
            status: probes[1].latencies(sentIn: burst)
        )
    }

    /// (a) Fills the daemon with clients holding ``spreadSessionsPerClient`` sessions each, and closes them one after
    /// the other, evenly over the relaunch window: the deadlines are as spread as the departures.
    func runSpread(_ daemon: DaemonUnderTest) throws -> Result {
        let driver = try ClientDriver()
        let perApp = max(1, sessions / Self.spreadSessionsPerClient / apps)
        let clients = try fill(daemon, driver: driver, admin: nil, clientsPerApp: perApp)
        // Connected once the clients are: a connection with no call for 10 s is closed (F13).
        let admin = try driver.connect(path: daemon.socketPath)
        let resident = try daemon.stats.residentBytes()
        let watch = try ExpiryWatch(
            driver: driver,
            socketPath: daemon.socketPath,
            sessions: sessions,
            relaunchWindow: relaunchWindow
        )
        driver.onFrame = { connection, frame in _ = try watch.handle(connection, frame, receivedAt: driver.receivedAt) }
        driver.onClose = { connection in
            if connection == watch.connection { throw BenchError.failed("locd closed the Admin.Watch stream") }
        }
        try watch.waitOpen(admin: admin, driver: driver)

        let cpuBefore = try daemon.stats.cpuSeconds()
        let benchBefore = ProcessStats.ownCPUSeconds()
        let disconnected = Clock.now
        let step = relaunchWindow / Double(clients.count)
        var next = 0
        let until = Clock.now + 2 * relaunchWindow + 300
        while watch.ended.count < sessions {
            guard Clock.now < until else {
                throw BenchError.failed(
                    "timed out waiting for \(sessions) sessions to end (\(watch.ended.count) so far)"
                )
            }
            while next < clients.count && Clock.now >= disconnected + Double(next) * step {
                driver.close(clients[next])
                next += 1
            }
            try driver.pump(milliseconds: 1)
        }
        let cpuAfter = try daemon.stats.cpuSeconds()
        let benchAfter = ProcessStats.ownCPUSeconds()
        try daemon.checkAlive("the deadline scenario")
        let outcome = try watch.outcome()
        return Result(
            lateness: outcome.lateness,
            early: outcome.early,
            earliest: outcome.earliest,
            cpuSeconds: cpuAfter - cpuBefore,
            wallSeconds: watch.lastEnded - disconnected,
            benchCPUSeconds: benchAfter - benchBefore,
            residentBytes: resident
        )
    }

    /// Fills the daemon again, stops it (its clients' sessions are stored, lingering) and restarts it:
    /// the seconds from exec to `READY=1`, and how many sessions it says it restored.
    /// - Returns: also locd's CPU time once `READY=1` came (in 10 ms ticks), which a busy host does not inflate as it
    ///   does the wall time (a start that waits for the disk, or for a CPU).
    func restart(_ daemon: DaemonUnderTest) throws -> (seconds: Double, restored: Int, cpuSeconds: Double) {
        do {
            let driver = try ClientDriver()
            _ = try fill(daemon, driver: driver, admin: nil)
            daemon.stop()
        }
        let ready = try daemon.start()
        let cpu = try daemon.stats.cpuSeconds()
        // "serving N apps; M sessions restored, lingering"
        let words = ready.status.split(separator: " ")
        guard let index = words.firstIndex(of: "sessions"), index > 0, let restored = Int(words[index - 1]) else {
            throw BenchError.failed("READY=1 came without a count of restored sessions: \(ready.status)")
        }
        return (ready.seconds, restored, cpu)
    }
}
