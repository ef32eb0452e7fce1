import Foundation
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS §10 R5–R9 against the real daemon: what a hostile local user can do to the store.
@Suite("Store tampering", .serialized)
struct StoreTamperTests {
    /// The log's bound (R5): 4,000 pages of 4 KiB, each framed with 24 bytes, plus half again for the frames
    /// written while the checkpoint that starts the log over runs.
    static let logBound = 4000 * (4096 + 24) * 3 / 2

    static func fileSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }

    /// What the churning clients saw, shared between their threads.
    final class ChurnLog: @unchecked Sendable {
        private let lock = NSLock()
        private var sizes: [Int] = []
        private var cycles = 0
        private var failure: (any Error)?

        func sample(_ size: Int) { lock.withLock { sizes.append(size) } }
        func cycled() { lock.withLock { cycles += 1 } }
        func failed(_ error: any Error) { lock.withLock { failure = error } }
        var result: (samples: [Int], cycles: Int, failure: (any Error)?) { lock.withLock { (sizes, cycles, failure) } }
    }

    /// Creates and invalidates sessions on `clients` connections at once, a thread each, until `cycles` are
    /// done, sampling the log's size every 50 cycles; returns the samples and the cycles done.
    static func churn(_ daemon: DaemonProcess, clients: Int, cycles: Int) throws -> (samples: [Int], cycles: Int) {
        let wal = daemon.stateDirectory + "/locd.sqlite-wal"
        let socket = daemon.socketPath
        let log = ChurnLog()
        let group = DispatchGroup()
        for _ in 0..<clients {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let app = try VarlinkClient(path: socket, timeout: 10)
                    try app.call("io.locd.App.Hello", ["appId": .string("com.ex.maps")])
                    for cycle in 0..<(cycles / clients) {
                        let created = try app.call("io.locd.App.CreateSession", ["authorization": .string("none")])
                        guard let id = created.sessionID else { throw VarlinkClient.ClientError.malformedReply }
                        try app.call("io.locd.App.InvalidateSession", ["id": .string(id)])
                        if cycle % 50 == 0 { log.sample(fileSize(wal)) }
                        log.cycled()
                    }
                } catch {
                    log.failed(error)
                }
            }.start()
        }
        group.wait()
        let result = log.result
        if let failure = result.failure { throw failure }
        return (result.samples, result.cycles)
    }

    @Test("R5: the store's log stays bounded while clients create and end sessions without pause")
    func logBoundedUnderChurn() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        // 14,000 cycles are 28,000 commits of two pages or more: the log grew to 44 MB over them when it never
        // started over (77 MB over 24,000), twice the bound.
        let (samples, cycles) = try Self.churn(daemon, clients: 4, cycles: 14_000)
        try #require(cycles == 14_000)
        let largest = samples.max() ?? 0
        #expect(largest > 0, "the log was sampled while it was in use")
        #expect(largest < Self.logBound, "the log reached \(largest) bytes, past \(Self.logBound)")
        #expect(Self.fileSize(daemon.stateDirectory + "/locd.sqlite-wal") < Self.logBound)
    }

    @Test("R6: a second locd on the same state directory exits 73 naming the first, which keeps its socket")
    func secondDaemonRefused() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let second = Process()
        second.executableURL = URL(fileURLWithPath: DaemonProcess.binary)
        second.arguments = ["--config", daemon.configPath]
        let errors = Pipe()
        second.standardError = errors
        second.standardOutput = FileHandle.nullDevice
        try second.run()
        // Polled with a deadline: a second locd that does not stop must fail the test, not hang it.
        _ = eventually(timeout: 10) { !second.isRunning }
        if second.isRunning { kill(second.processIdentifier, SIGKILL) }
        let ended = second.waitForExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(ended.status == 73)
        #expect(said.contains(daemon.stateDirectory + "/lock"), "stderr: \(said)")
        #expect(said.contains("pid \(daemon.pid)"), "stderr: \(said)")
        // The first still serves on its socket, and it is still the first that answers.
        let status = try daemon.connect().call("io.locd.Admin.Status")["status"]
        #expect(status?["pid"] == .int(Int64(daemon.pid)))
    }

    @Test("R7: with the state directory deleted, locd says the store fails and acknowledges no decision")
    func stateDirectoryDeleted() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "always")
        try FileManager.default.removeItem(atPath: daemon.stateDirectory)

        admin.timeout = 1.5
        try admin.send(
            VarlinkCall(
                method: "io.locd.Admin.SetAuthorization",
                parameters: ["appId": .string("com.ex.maps"), "setting": .string("never")]
            )
        )
        #expect(throws: VarlinkClient.ClientError.timedOut) { _ = try admin.receive() }
        let status = try daemon.connect().call("io.locd.Admin.Status")["status"]
        #expect(status?["storeHealthy"] == .bool(false))
        // Still serving from memory, and it says so; locctl shows it too.
        let locctl = try LocctlBinary.run(["status"], socket: daemon.socketPath)
        #expect(locctl.output.contains("FAILING"), "locctl status: \(locctl.output)")
        daemon.stop()
        #expect(daemon.errorOutput.contains("deleted or replaced"), "\(daemon.errorOutput)")
    }

    @Test("R11: with the store failing, a CreateSession called with more hears its session, but no acknowledgement")
    func sessionDecidedWhileStoreFails() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        _ = try daemon.authorize("com.ex.maps", "whileUsing")
        let app = try daemon.app("com.ex.maps")
        try FileManager.default.removeItem(atPath: daemon.stateDirectory)

        app.timeout = 1.5
        let create = VarlinkCall(
            method: "io.locd.App.CreateSession",
            parameters: ["authorization": .string("whenInUse")],
            more: true
        )
        try app.send(create)
        let decided = try app.receive()
        #expect(decided.error == nil && decided.continues, "\(decided)")
        #expect(decided.parameters["session"]?["state"] == .string("active"), "\(decided)")
        // The reply that acknowledges the session waits for the store, which never takes it (R2, R11).
        #expect(throws: VarlinkClient.ClientError.timedOut) { _ = try app.receive() }
        // Without `more`, nothing at all: the call is answered only once the session is stored.
        let other = try daemon.app("com.ex.maps")
        other.timeout = 1.5
        try other.send(
            VarlinkCall(method: "io.locd.App.CreateSession", parameters: ["authorization": .string("whenInUse")])
        )
        #expect(throws: VarlinkClient.ClientError.timedOut) { _ = try other.receive() }
        daemon.stop()
    }

    @Test("R7: an immutable -shm file makes the store fail, not the daemon die of SIGBUS")
    func immutableSharedMemory() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let shm = daemon.stateDirectory + "/locd.sqlite-shm"
        guard getuid() == 0, Self.chattr("+i", shm) else {
            print("skipped: chattr +i needs root, chattr (e2fsprogs), and a file system with the immutable flag")
            return
        }
        defer { _ = Self.chattr("-i", shm) }
        // Enough churn to make SQLite write to every page of its mapping many times over.
        let app = try daemon.app("com.ex.maps")
        for _ in 0..<2000 {
            guard let created = try? app.call("io.locd.App.CreateSession", ["authorization": .string("none")]),
                let id = created.sessionID
            else { break }
            _ = try? app.call("io.locd.App.InvalidateSession", ["id": .string(id)])
        }
        let status = try daemon.connect().call("io.locd.Admin.Status")["status"]
        #expect(status?["storeHealthy"] == .bool(false))
        #expect(daemon.process?.isRunning == true)
    }

    @Test("R9: a log with a garbage header is set aside at start, with an error line naming it")
    func garbageLogAtStart() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.connect().call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("always")]
        )
        daemon.crash()
        let wal = daemon.stateDirectory + "/locd.sqlite-wal"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: wal))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 32))
        try handle.close()
        try daemon.start()
        daemon.stop()
        let aside = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory)
            .filter { $0.hasPrefix("locd.sqlite-wal.damaged-") }
        #expect(aside.count == 1)
        let line = daemon.errorOutput.split(separator: "\n").first { $0.contains("damaged") }
        #expect(line?.contains(wal) == true, "\(daemon.errorOutput)")
    }

    /// Runs `chattr flag path`; whether it worked.
    static func chattr(_ flag: String, _ path: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, path]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        return process.waitForExit().status == 0
    }
}
