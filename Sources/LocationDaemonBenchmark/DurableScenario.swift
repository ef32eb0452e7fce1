/// Scenario 7: `Admin.SetAuthorization` calls, each one a real change (the setting alternates) that `locd` commits
/// to SQLite with `synchronous = FULL` before it replies: one at a time from one administrator, and from
/// `administrators` connections at once, each deciding for an app of its own with one call in flight, as agents
/// answering together do. Decisions that arrive together share a commit (group commit); each is acknowledged only
/// once the commit that holds it is on disk (SEMANTICS R1).
struct DurableScenario {
    /// Calls in all, spread over the connections.
    var calls: Int
    var administrators = 1

    struct Result {
        var rate: Double
        var latencies: Latencies
    }

    func run(_ daemon: DaemonUnderTest) throws -> Result {
        let driver = try ClientDriver()
        let count = max(1, administrators)
        let apps = (0..<count).map { "bench.durable.\($0)" }
        var connections: [Int] = []
        for _ in 0..<count { connections.append(try driver.connect(path: daemon.socketPath)) }
        _ = try driver.helloClients(path: daemon.socketPath, count: count, timeout: 30) { apps[$0] }
        var owner: [Int: Int] = [:]
        for (index, connection) in connections.enumerated() { owner[connection] = index }
        var latencies = Latencies()
        var sent = 0
        var done = 0
        var sentAt = [UInt64](repeating: 0, count: count)
        var steps = [Int](repeating: 0, count: count)
        var failure: String?
        let settings = ["whileUsing", "never"]
        func send(_ index: Int) throws {
            sentAt[index] = Clock.nanoseconds
            sent += 1
            try driver.send(connections[index], Wire.setAuthorization(apps[index], settings[steps[index] % 2]))
            steps[index] += 1
        }
        driver.onFrame = { connection, frame in
            guard let index = owner[connection] else { return }
            latencies.record(nanoseconds: Clock.nanoseconds - sentAt[index])
            done += 1
            if let name = Wire.error(in: frame) {
                failure = "SetAuthorization answered \(name): \(String(decoding: frame, as: UTF8.self).prefix(300))"
                return
            }
            if sent < calls { try send(index) }
        }
        driver.onClose = { _ in throw BenchError.failed("locd closed an administrator's connection") }
        let start = Clock.now
        for index in 0..<min(count, calls) { try send(index) }
        try driver.run(until: { done == sent || failure != nil }, timeout: 600, what: "SetAuthorization replies")
        if let failure { throw BenchError.failed(failure) }
        return Result(rate: Double(done) / (Clock.now - start), latencies: latencies)
    }
}
