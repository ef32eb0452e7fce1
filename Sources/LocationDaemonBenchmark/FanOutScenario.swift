/// Scenario 3: many connections each streaming `SessionDiagnostics`; location services are switched
/// off and on, and each flip is timed until the last client has read its new diagnostic.
struct FanOutScenario {
    var connections: Int
    var flips: Int
    /// Watchers per app: the daemon's `max-clients-per-app` allows 128 connections per app.
    var perApp = 100

    struct Result {
        var flipTimes: Latencies
        /// `locd`'s resident memory with every stream open.
        var residentBytes: Int
    }

    func run(_ daemon: DaemonUnderTest) throws -> Result {
        let driver = try ClientDriver()
        let admin = try driver.connect(path: daemon.socketPath)
        let appCount = (connections + perApp - 1) / perApp
        let apps = (0..<appCount).map { "bench.fanout.\($0)" }
        // One owner per app holds an explicit session; the watchers stream its diagnostics.
        let owners = try driver.helloClients(path: daemon.socketPath, count: appCount, timeout: 60) { apps[$0] }
        try driver.authorize(admin: admin, apps: apps, timeout: 120)
        let created = try driver.exchange(owners.map { ($0, Wire.createSession) }, timeout: 60, what: "CreateSession")
        let sessionIDs = try created.map { reply in
            guard let id = Wire.string(after: "\"id\":\"", in: reply[...]) else {
                throw BenchError.failed("CreateSession reply without a session id")
            }
            return id
        }

        var watchers: [Int] = []
        var calls: [(connection: Int, bytes: [UInt8])] = []
        for index in 0..<connections {
            let app = index % appCount
            let watcher = try driver.connect(path: daemon.socketPath)
            watchers.append(watcher)
            calls.append((watcher, Wire.hello(apps[app])))
            calls.append((watcher, Wire.sessionDiagnostics(sessionIDs[app])))
        }
        // Hello, then the stream's first reply (the current diagnostic), on every connection.
        try driver.exchange(calls, timeout: 300, what: "Hello and SessionDiagnostics")
        try daemon.checkAlive("fan-out set-up")
        let resident = try daemon.stats.residentBytes()

        var isWatcher = [Bool](repeating: false, count: (watchers.max() ?? 0) + 1)
        for watcher in watchers { isWatcher[watcher] = true }
        var flipTimes = Latencies()
        for flip in 0..<flips {
            // Off first, then on again, and so on; "off" shows as authorizationDeniedGlobally.
            let enabled = flip % 2 == 1
            var updated = [Bool](repeating: false, count: isWatcher.count)
            var pending = watchers.count
            var adminReplied = false
            var lastRead = 0.0
            var failure: String?
            driver.onFrame = { connection, frame in
                if connection == admin {
                    adminReplied = true
                    if let name = Wire.error(in: frame) { failure = "SetLocationServices answered \(name)" }
                    return
                }
                guard isWatcher[connection], !updated[connection] else { return }
                let deniedGlobally = Wire.index(after: "authorizationDeniedGlobally", in: frame) != nil
                guard deniedGlobally != enabled else { return }
                updated[connection] = true
                pending -= 1
                lastRead = Clock.now
            }
            driver.onClose = { _ in throw BenchError.failed("locd closed a diagnostics stream during a flip") }
            let start = Clock.now
            try driver.send(admin, Wire.setLocationServices(enabled))
            try driver.run(
                until: { (pending == 0 && adminReplied) || failure != nil },
                timeout: 120,
                what: "\(pending) diagnostics of flip \(flip + 1)"
            )
            if let failure { throw BenchError.failed(failure) }
            flipTimes.record(seconds: lastRead - start)
        }
        try daemon.checkAlive("fan-out")
        return Result(flipTimes: flipTimes, residentBytes: resident)
    }
}
