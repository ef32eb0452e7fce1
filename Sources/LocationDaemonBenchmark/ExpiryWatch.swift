import LocationProtocol

/// An `Admin.Watch` stream that collects every session's linger and end, for the deadline scenarios.
///
/// A session's deadline is its `lingering` event's stamp + the relaunch window: the instant its end is due,
/// whatever the stamp of the end (a batch handled after a later event stamps its ends no earlier than that event,
/// SEMANTICS F21). Lateness is when the `sessionEnded` event reached the benchmark (`CLOCK_REALTIME` as the read
/// that brought it returned, not once the benchmark had parsed the frames before it) minus that deadline: the
/// timer's delay, the work of the wake-up and the delivery, as a client sees them.
final class ExpiryWatch {
    let connection: Int
    let relaunchWindow: Double
    private(set) var open = false
    private(set) var lingerAt: [String: Double] = [:]
    /// Each ended session's id, the stamp of its end and when its event arrived.
    private(set) var ended: [(id: String, at: Double, received: Double)] = []
    private(set) var lastEnded = 0.0
    /// A spare app whose state flips until the stream shows it is open.
    private let spare: Int

    /// Connects the stream's connection and the spare app (before the caller sets the driver's handlers, which
    /// `helloClients` replaces); ``waitOpen(admin:driver:)`` then opens the stream.
    init(driver: ClientDriver, socketPath: String, sessions: Int, relaunchWindow: Double) throws {
        spare = try driver.helloClients(path: socketPath, count: 1, timeout: 30) { _ in "bench.sync" }[0]
        connection = try driver.connect(path: socketPath)
        self.relaunchWindow = relaunchWindow
        // Ends are appended to an array written through once beforehand: inserted into a dictionary reserved
        // for all of them, most of the first thousand faulted in a fresh page, and the benchmark, busy with
        // that, read the first expiries' events milliseconds late (perf).
        var ended = Array(repeating: (id: "", at: 0.0, received: 0.0), count: sessions)
        ended.removeAll(keepingCapacity: true)
        self.ended = ended
        lingerAt.reserveCapacity(sessions)
    }

    /// Handles a frame of the stream; false for a frame of another connection.
    func handle(_ connection: Int, _ frame: ArraySlice<UInt8>, receivedAt: Double) throws -> Bool {
        guard connection == self.connection else { return false }
        if let name = Wire.error(in: frame) { throw BenchError.failed("Admin.Watch answered \(name)") }
        guard let kind = Wire.string(after: "\"kind\":\"", in: frame) else { return true }
        switch kind {
        case "appStateChanged":
            if Wire.string(after: "\"appId\":\"", in: frame) == "bench.sync" { open = true }
        case "sessionChanged":
            guard Wire.string(after: "\"detail\":\"", in: frame) == "lingering",
                let id = Wire.string(after: "\"sessionId\":\"", in: frame),
                let at = Wire.number(after: "\"timestamp\":", in: frame)
            else { return true }
            lingerAt[id] = at
        case "sessionEnded":
            guard let id = Wire.string(after: "\"sessionId\":\"", in: frame),
                let at = Wire.number(after: "\"timestamp\":", in: frame)
            else { return true }
            ended.append((id, at, receivedAt))
            lastEnded = Clock.now
        default: break
        }
        return true
    }

    /// Sends `Admin.Watch` and waits until it reports a change made after it: calls on two connections are not
    /// ordered (a new connection is read by locd's identification first, SEMANTICS I4), so a spare app's state
    /// flips every 100 ms from `admin` until the stream reports one. The driver's handlers must call ``handle``.
    func waitOpen(admin: Int, driver: ClientDriver) throws {
        try driver.send(connection, Wire.watch)
        let flipsUntil = Clock.now + 30
        var flips = 0
        while !open {
            guard Clock.now < flipsUntil else {
                throw BenchError.failed("timed out after 30 s waiting for the Admin.Watch stream to open")
            }
            let state = flips % 2 == 0 ? "background" : "foreground"
            flips += 1
            try driver.send(
                admin,
                Wire.call(AdminMethod.setAppState.name, "{\"appId\":\"bench.sync\",\"state\":\"\(state)\"}")
            )
            do {
                try driver.run(until: { open }, timeout: 0.1, what: "the Admin.Watch stream to open")
            } catch BenchError.failed(let message) where message.hasPrefix("timed out") {
                continue
            }
        }
        driver.close(spare)
    }

    /// What the ends show, once every session ended: lateness against each deadline, and the checks that no
    /// session ended twice or before its deadline.
    func outcome() throws -> (lateness: Latencies, early: Int, earliest: Double, firstDeadline: Double) {
        let distinct = Set(ended.lazy.map(\.id)).count
        guard distinct == ended.count else {
            throw BenchError.failed("\(ended.count - distinct) sessionEnded events repeat a session already ended")
        }
        var lateness = Latencies()
        var early = 0
        var earliest = 0.0
        var firstDeadline = Double.infinity
        for (id, endedAt, received) in ended {
            guard let lingered = lingerAt[id] else {
                throw BenchError.failed("session \(id) ended without a lingering event")
            }
            let deadline = lingered + relaunchWindow
            firstDeadline = min(firstDeadline, deadline)
            lateness.record(seconds: received - deadline)
            // The two stamps are converted from CLOCK_BOOTTIME at different moments: allow 1 ms.
            let margin = endedAt - deadline
            if margin < -0.001 { early += 1 }
            earliest = min(earliest, margin)
        }
        return (lateness, early, -earliest, firstDeadline)
    }
}
