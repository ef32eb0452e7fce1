/// Scenarios 1 and 2: session churn against `locd`, then the same clients sending the same bytes to the
/// echo server; the ratio of the two rates is the figure that matters.
struct ChurnScenario {
    var clients: Int
    var seconds: Double

    struct Result {
        var calls: Int
        var elapsed: Double
        var latencies: Latencies
        var rate: Double { Double(calls) / elapsed }
    }

    /// Each client, bound to its own pre-authorized app, loops `CreateSession` then `InvalidateSession`
    /// of the session it got, one call in flight, for ``seconds``.
    /// - Returns: the result and one `InvalidateSession` call as sent, for the echo run's bytes.
    func runAgainstDaemon(_ daemon: DaemonUnderTest) throws -> (Result, invalidate: [UInt8]) {
        let driver = try ClientDriver()
        let admin = try driver.connect(path: daemon.socketPath)
        let apps = (0..<clients).map { "bench.churn.\($0)" }
        let connections = try driver.helloClients(path: daemon.socketPath, count: clients, timeout: 30) { apps[$0] }
        try driver.authorize(admin: admin, apps: apps, timeout: 60)

        var sampleInvalidate: [UInt8] = []
        var failure: String?
        let result = try loop(driver: driver, connections: connections) {
            frame in
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
        if let failure { throw BenchError.failed(failure) }
        try daemon.checkAlive("churn")
        return (result, sampleInvalidate)
    }

    /// The same clients and the same bytes (`CreateSession`, then `InvalidateSession` of a real session id)
    /// against the echo server.
    func runAgainstEcho(path: String, invalidate: [UInt8]) throws -> Result {
        let driver = try ClientDriver()
        var connections: [Int] = []
        for _ in 0..<clients { connections.append(try driver.connect(path: path)) }
        let create = Array(Wire.createSession.dropLast())
        return try loop(driver: driver, connections: connections) { frame in
            frame.elementsEqual(create) ? invalidate : Wire.createSession
        }
    }

    /// Runs the closed loop: each connection sends `CreateSession`, and after each reply the call `next` gives
    /// (`nil` stops that client), until ``seconds`` have passed; every call's round trip is recorded.
    private func loop(
        driver: ClientDriver,
        connections: [Int],
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
            guard !stopping, let call = next(frame) else { return }
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
