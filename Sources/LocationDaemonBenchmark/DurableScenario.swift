/// Scenario 7: `Admin.SetAuthorization` calls, one at a time, each one a real change (the setting
/// alternates) that `locd` commits to SQLite with `synchronous = FULL` before it replies.
struct DurableScenario {
    var calls: Int

    struct Result {
        var rate: Double
        var latencies: Latencies
    }

    func run(_ daemon: DaemonUnderTest) throws -> Result {
        let driver = try ClientDriver()
        let admin = try driver.connect(path: daemon.socketPath)
        let app = "bench.durable"
        _ = try driver.helloClients(path: daemon.socketPath, count: 1, timeout: 30) { _ in app }
        var latencies = Latencies()
        var done = 0
        var sentAt: UInt64 = 0
        var failure: String?
        let settings = ["whileUsing", "never"]
        driver.onFrame = { connection, frame in
            guard connection == admin else { return }
            latencies.record(nanoseconds: Clock.nanoseconds - sentAt)
            done += 1
            if let name = Wire.error(in: frame) {
                failure = "SetAuthorization answered \(name): \(String(decoding: frame, as: UTF8.self).prefix(300))"
                return
            }
            guard done < calls else { return }
            sentAt = Clock.nanoseconds
            try driver.send(admin, Wire.setAuthorization(app, settings[done % 2]))
        }
        driver.onClose = { _ in throw BenchError.failed("locd closed the admin connection") }
        let start = Clock.now
        sentAt = Clock.nanoseconds
        try driver.send(admin, Wire.setAuthorization(app, settings[0]))
        try driver.run(until: { done == calls || failure != nil }, timeout: 600, what: "SetAuthorization replies")
        if let failure { throw BenchError.failed(failure) }
        return Result(rate: Double(calls) / (Clock.now - start), latencies: latencies)
    }
}
