/// Scenarios 1 and 2: session churn against `locd`, and the same clients sending the same bytes to the
/// echo server; the ratio of the two rates is the figure that matters.
///
/// The two alternate in ``rounds`` rounds, on connections opened once, so that a machine whose speed drifts
/// over the run (other work starting or ending, the clock rate) weighs on both alike: run one after the
/// other, ten seconds each, the same binaries gave ratios from 0.43 to 0.62.
struct ChurnScenario {
    var clients: Int
    var seconds: Double
    var rounds = 5

    struct Result {
        var calls = 0
        var elapsed = 0.0
        var latencies = Latencies()
        var rate: Double { Double(calls) / elapsed }

        mutating func add(_ round: Result) {
            calls += round.calls
            elapsed += round.elapsed
            latencies.add(round.latencies)
        }
    }

    /// Each client, bound to its own pre-authorized app, loops `CreateSession` then `InvalidateSession`
    /// of the session it got, one call in flight; the same clients send the same bytes (`CreateSession`,
    /// then `InvalidateSession` of a real session id) to the echo server at `echoPath`. ``seconds`` each
    /// in all, in ``rounds`` alternating rounds.
    func run(_ daemon: DaemonUnderTest, echoPath: String) throws -> (locd: Result, echo: Result) {
        let driver = try ClientDriver()
        let admin = try driver.connect(path: daemon.socketPath)
        let apps = (0..<clients).map { "bench.churn.\($0)" }
        let connections = try driver.helloClients(path: daemon.socketPath, count: clients, timeout: 30) { apps[$0] }
        try driver.authorize(admin: admin, apps: apps, timeout: 60)
        let echoDriver = try ClientDriver()
        var echoConnections: [Int] = []
        for _ in 0..<clients { echoConnections.append(try echoDriver.connect(path: echoPath)) }

        var sampleInvalidate: [UInt8] = []
        var failure: String?
        var locd = Result()
        var echo = Result()
        let slice = seconds / Double(rounds)
        for _ in 0..<rounds {
            locd.add(
                try loop(driver: driver, connections: connections, seconds: slice) { frame in
                    if let name = Wire.error(in: frame) {
                        failure = "churn: locd answered \(name): \(String(decoding: frame, as: UTF8.self).prefix(300))"
                        return nil
                    }
                    // A CreateSession reply carries the session; an InvalidateSession reply is empty.
                    guard let id = Wire.string(after: "\"id\":\"", in: frame) else { return Wire.createSession }
                    let call = Wire.invalidateSession(id)
                    if sampleInvalidate.isEmpty { sampleInvalidate = call }
                    return call
                }
            )
            if let failure { throw BenchError.failed(failure) }
            try daemon.checkAlive("churn")
            let create = Array(Wire.createSession.dropLast())
            let invalidate = sampleInvalidate
            echo.add(
                try loop(driver: echoDriver, connections: echoConnections, seconds: slice) { frame in
                    frame.elementsEqual(create) ? invalidate : Wire.createSession
                }
            )
        }
        return (locd, echo)
    }

    /// Runs the closed loop: each connection sends `CreateSession`, and after each reply the call `next` gives
    /// (`nil` stops that client), until `seconds` have passed and every client has finished its pair (so no
    /// session is left behind between rounds); every call's round trip is recorded.
    private func loop(
        driver: ClientDriver,
        connections: [Int],
        seconds: Double,
        next: @escaping (ArraySlice<UInt8>) -> [UInt8]?
    ) throws -> Result {
        var sentAt = [UInt64](repeating: 0, count: (connections.max() ?? 0) + 1)
        var latencies = Latencies()
        var calls = 0
        var inFlight = 0
        var stopping = false
        let start = Clock.now
        let end = start + seconds
        var sendError: Error?
        driver.onFrame = { connection, frame in
            let now = Clock.nanoseconds
            latencies.record(nanoseconds: now - sentAt[connection])
            calls += 1
            inFlight -= 1
            guard let call = next(frame), !(stopping && call == Wire.createSession) else { return }
            sentAt[connection] = Clock.nanoseconds
            inFlight += 1
            do { try driver.send(connection, call) } catch { sendError = error }
        }
        driver.onClose = { _ in throw BenchError.failed("the server closed a churn connection") }
        for connection in connections {
            sentAt[connection] = Clock.nanoseconds
            inFlight += 1
            try driver.send(connection, Wire.createSession)
        }
        try driver.run(
            until: {
                if !stopping && Clock.now >= end { stopping = true }
                return (stopping && inFlight == 0) || sendError != nil
            },
            timeout: seconds + 30,
            what: "churn replies"
        )
        if let sendError { throw sendError }
        return Result(calls: calls, elapsed: Clock.now - start, latencies: latencies)
    }
}
