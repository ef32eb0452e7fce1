/// Scenarios 4, 5 (with many sessions) and 6 (with many stored sessions): sessions across many apps
/// whose clients all disconnect at once, each lingering for the relaunch window and then expiring.
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
    }

    private var appIDs: [String] { (0..<apps).map { "bench.deadline.\($0)" } }

    /// Connects one client per app, pre-authorizes the apps (once), and creates the sessions, pipelined.
    func fill(_ daemon: DaemonUnderTest, driver: ClientDriver, admin: Int, authorize: Bool) throws -> [Int] {
        let ids = appIDs
        let clients = try driver.helloClients(path: daemon.socketPath, count: apps, timeout: 120) { ids[$0] }
        if authorize { try driver.authorize(admin: admin, apps: ids, timeout: 600) }
        var calls: [(connection: Int, bytes: [UInt8])] = []
        calls.reserveCapacity(sessions)
        for index in 0..<sessions { calls.append((clients[index % apps], Wire.createSession)) }
        try driver.exchange(calls, timeout: 600, what: "CreateSession")
        try daemon.checkAlive("creating \(sessions) sessions")
        return clients
    }

    /// Fills the daemon, disconnects every client at once, and reads every session's linger and end from
    /// an `Admin.Watch` stream.
    ///
    /// The core stamps an expiry with its deadline instant, not with the wake-up (so that what follows
    /// counts from when it was due), so an event's timestamp is the deadline itself: lateness is when the
    /// `sessionEnded` event reached the benchmark (`CLOCK_REALTIME` as the read that brought it returned, not
    /// once the benchmark had parsed the frames before it) minus that timestamp, which counts the timer's
    /// delay, the work of the wake-up and the delivery, as a client sees them. The stamps still
    /// prove no session ended early: the end's stamp is never before the linger's stamp + the window.
    func run(_ daemon: DaemonUnderTest) throws -> Result {
        let driver = try ClientDriver()
        let admin = try driver.connect(path: daemon.socketPath)
        let clients = try fill(daemon, driver: driver, admin: admin, authorize: true)
        let resident = try daemon.stats.residentBytes()

        // The Watch stream has no first reply: an app-state change of a spare app shows it is open.
        let watch = try driver.connect(path: daemon.socketPath)
        let spare = try driver.helloClients(path: daemon.socketPath, count: 1, timeout: 30) { _ in "bench.sync" }[0]
        var watching = false
        var lingerAt: [String: Double] = [:]
        // Ends are appended to an array written through once beforehand: inserted into a dictionary reserved
        // for all of them, most of the first thousand faulted in a fresh page, and the benchmark, busy with
        // that, read the first expiries' events milliseconds late (perf).
        var ended = Array(repeating: (id: "", at: 0.0), count: sessions)
        ended.removeAll(keepingCapacity: true)
        var lateness = Latencies()
        lingerAt.reserveCapacity(sessions)
        var lastEnded = 0.0
        driver.onFrame = { connection, frame in
            guard connection == watch else { return }
            if let name = Wire.error(in: frame) { throw BenchError.failed("Admin.Watch answered \(name)") }
            guard let kind = Wire.string(after: "\"kind\":\"", in: frame) else { return }
            switch kind {
            case "appStateChanged":
                if Wire.string(after: "\"appId\":\"", in: frame) == "bench.sync" { watching = true }
            case "sessionChanged":
                guard Wire.string(after: "\"detail\":\"", in: frame) == "lingering",
                    let id = Wire.string(after: "\"sessionId\":\"", in: frame),
                    let at = Wire.number(after: "\"timestamp\":", in: frame)
                else { return }
                lingerAt[id] = at
            case "sessionEnded":
                guard let id = Wire.string(after: "\"sessionId\":\"", in: frame),
                    let at = Wire.number(after: "\"timestamp\":", in: frame)
                else { return }
                ended.append((id, at))
                lastEnded = Clock.now
                lateness.record(seconds: driver.receivedAt - at)
            default: return
            }
        }
        driver.onClose = { connection in
            if connection == watch { throw BenchError.failed("locd closed the Admin.Watch stream") }
        }
        try driver.send(watch, Wire.watch)
        // Calls on two connections are not ordered: a change made on `admin` can be handled before the Watch
        // call is read (a new connection is read by locd's identification first, SEMANTICS I4). So the spare
        // app's state flips every 100 ms until the stream reports one.
        let flipsUntil = Clock.now + 30
        var flips = 0
        while !watching {
            guard Clock.now < flipsUntil else {
                throw BenchError.failed("timed out after 30 s waiting for the Admin.Watch stream to open")
            }
            let state = flips % 2 == 0 ? "background" : "foreground"
            flips += 1
            try driver.send(
                admin,
                Wire.call("io.locd.Admin.SetAppState", "{\"appId\":\"bench.sync\",\"state\":\"\(state)\"}")
            )
            do {
                try driver.run(until: { watching }, timeout: 0.1, what: "the Admin.Watch stream to open")
            } catch BenchError.failed(let message) where message.hasPrefix("timed out") {
                continue
            }
        }
        driver.close(spare)

        let cpuBefore = try daemon.stats.cpuSeconds()
        let benchBefore = ProcessStats.ownCPUSeconds()
        let disconnected = Clock.now
        for client in clients { driver.close(client) }
        try driver.run(
            until: { ended.count >= sessions },
            timeout: relaunchWindow + 300,
            what: "\(sessions) sessions to end (\(ended.count) so far)"
        )
        let cpuAfter = try daemon.stats.cpuSeconds()
        let benchAfter = ProcessStats.ownCPUSeconds()
        try daemon.checkAlive("the deadline scenario")

        let distinct = Set(ended.lazy.map(\.id)).count
        guard distinct == ended.count else {
            throw BenchError.failed("\(ended.count - distinct) sessionEnded events repeat a session already ended")
        }
        var early = 0
        var earliest = 0.0
        for (id, endedAt) in ended {
            guard let lingered = lingerAt[id] else {
                throw BenchError.failed("session \(id) ended without a lingering event")
            }
            // The two stamps are converted from CLOCK_BOOTTIME at different moments: allow 1 ms.
            let margin = endedAt - (lingered + relaunchWindow)
            if margin < -0.001 { early += 1 }
            earliest = min(earliest, margin)
        }
        return Result(
            lateness: lateness,
            early: early,
            earliest: -earliest,
            cpuSeconds: cpuAfter - cpuBefore,
            wallSeconds: lastEnded - disconnected,
            benchCPUSeconds: benchAfter - benchBefore,
            residentBytes: resident
        )
    }

    /// Fills the daemon again, stops it (its clients' sessions are stored, lingering) and restarts it:
    /// the seconds from exec to `READY=1`, and how many sessions it says it restored.
    func restart(_ daemon: DaemonUnderTest) throws -> (seconds: Double, restored: Int) {
        do {
            let driver = try ClientDriver()
            let admin = try driver.connect(path: daemon.socketPath)
            _ = try fill(daemon, driver: driver, admin: admin, authorize: false)
            daemon.stop()
        }
        let ready = try daemon.start()
        // "serving N apps; M sessions restored, lingering"
        let words = ready.status.split(separator: " ")
        guard let index = words.firstIndex(of: "sessions"), index > 0, let restored = Int(words[index - 1]) else {
            throw BenchError.failed("READY=1 came without a count of restored sessions: \(ready.status)")
        }
        return (ready.seconds, restored)
    }
}
