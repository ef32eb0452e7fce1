import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Scenario 9: maximum session churn held for a long time, with the store's log and locd's memory sampled
/// over it (SEMANTICS R5): both must stay flat, whatever the load and however long it lasts.
///
/// Each client, bound to its own pre-authorized app, loops `CreateSession` then `InvalidateSession` with one
/// call in flight, for ``seconds``; every ``interval`` the size of `locd.sqlite-wal` and locd's resident
/// memory are read.
struct SustainedChurnScenario {
    var clients: Int
    var seconds: Double
    var interval = 0.25

    /// A series of samples: the first, the largest and the last.
    struct Series {
        var samples: [Int] = []
        var first: Int { samples.first ?? 0 }
        var largest: Int { samples.max() ?? 0 }
        var last: Int { samples.last ?? 0 }

        var summary: String {
            "first \(Format.mebibytes(first)), max \(Format.mebibytes(largest)), last \(Format.mebibytes(last))"
        }
    }

    struct Result {
        var calls = 0
        var elapsed = 0.0
        var log = Series()
        var resident = Series()
        var rate: Double { Double(calls) / elapsed }
    }

    func run(_ daemon: DaemonUnderTest, logPath: String) throws -> Result {
        let driver = try ClientDriver()
        let admin = try driver.connect(path: daemon.socketPath)
        let apps = (0..<clients).map { "bench.sustained.\($0)" }
        let connections = try driver.helloClients(path: daemon.socketPath, count: clients, timeout: 30) { apps[$0] }
        try driver.authorize(admin: admin, apps: apps, timeout: 60)

        var result = Result()
        var failure: String?
        var inFlight = 0
        var stopping = false
        func sample() throws {
            var status = stat()
            result.log.samples.append(stat(logPath, &status) == 0 ? Int(status.st_size) : 0)
            result.resident.samples.append(try daemon.stats.residentBytes())
        }
        driver.onFrame = { connection, frame in
            result.calls += 1
            inFlight -= 1
            if let name = Wire.error(in: frame) {
                failure = "sustained churn: locd answered \(name)"
                return
            }
            // A CreateSession reply carries the session; an InvalidateSession reply is empty.
            let call = Wire.string(after: "\"id\":\"", in: frame).map(Wire.invalidateSession) ?? Wire.createSession
            if stopping && call == Wire.createSession { return }
            inFlight += 1
            do { try driver.send(connection, call) } catch { failure = "sustained churn: \(error)" }
        }
        driver.onClose = { _ in throw BenchError.failed("the server closed a sustained churn connection") }
        try sample()
        let start = Clock.now
        var nextSample = start + interval
        for connection in connections {
            inFlight += 1
            try driver.send(connection, Wire.createSession)
        }
        var sampleError: Error?
        try driver.run(
            until: {
                let now = Clock.now
                if now >= nextSample {
                    do { try sample() } catch { sampleError = error }
                    nextSample = now + interval
                }
                if !stopping && now >= start + seconds { stopping = true }
                return (stopping && inFlight == 0) || failure != nil || sampleError != nil
            },
            timeout: seconds + 30,
            what: "sustained churn replies"
        )
        if let failure { throw BenchError.failed(failure) }
        if let sampleError { throw sampleError }
        result.elapsed = Clock.now - start
        try sample()
        return result
    }
}
