import Foundation
import LocationTestSupport
import Testing
import Varlink

/// SEMANTICS §10, R10–R13: commits that wait for the disk, or fail, hold back only the replies that
/// acknowledge them and the reads that would reveal an undurable decision; everyone else is served.
///
/// The disk is stalled by another process holding an exclusive lock on `locd.sqlite`: locd's commit waits
/// on it for the store's busy timeout (2 s), then fails and is retried every second.
@Suite("Commit stalls", .serialized)
struct CommitStallTests {
    @Test("R10: while a CreateSession commit waits for the disk, GetInfo and Admin.Status are answered at once")
    func stalledCommitBlocksNobodyElse() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.authorize("com.ex.maps", "whileUsing")
        let app = try daemon.app("com.ex.maps")
        let lock = try StoreLock(daemon)
        let stalled = Date()
        try app.send(
            VarlinkCall(method: "io.locd.App.CreateSession", parameters: ["authorization": .string("whenInUse")])
        )

        // The core has the session, so its commit has been handed on and waits on the lock; every answer below
        // comes within a second, well inside the store's two-second wait.
        let observer = try daemon.connect()
        observer.timeout = 1
        #expect(
            try eventually(timeout: 1.5) { try observer.call("io.locd.Admin.Status")["status"]?["sessions"] == .int(1) }
        )
        let info = try observer.call("org.varlink.service.GetInfo")
        #expect(info["product"] == .string("locd"))
        let other = try daemon.app("com.ex.run")
        other.timeout = 1
        #expect(try other.call("io.locd.App.ListSessions")["sessions"] == .array([]))
        #expect(try observer.call("io.locd.Admin.Status")["status"]?["storeHealthy"] == .bool(true))
        #expect(Date().timeIntervalSince(stalled) < 2, "the answers came after the commit stopped waiting")

        // R1, R2: the session is acknowledged only once it is stored.
        app.timeout = 0.3
        #expect(throws: VarlinkClient.ClientError.timedOut) { _ = try app.receive() }
        lock.release()
        app.timeout = 10
        let reply = try app.receive()
        #expect(reply.error == nil)
        let id = try #require(reply.parameters.sessionID)
        daemon.crash()
        try daemon.start()
        let restored = try daemon.connect().call("io.locd.Admin.ListSessions")["sessions"]?.arrayValue ?? []
        #expect(restored.map { $0["id"]?.stringValue } == [id])
    }

    @Test(
        "R11: CreateSession is unacknowledged while the store fails (R2 holds): after kill -9 none acknowledged is lost"
    )
    func sessionsWaitForTheStore() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "whileUsing")
        let app = try daemon.app("com.ex.maps")
        let stored = try #require(
            try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")]).sessionID
        )
        var acknowledged = [stored]

        let lock = try StoreLock(daemon)
        let creator = try daemon.app("com.ex.maps")
        try creator.send(
            VarlinkCall(method: "io.locd.App.CreateSession", parameters: ["authorization": .string("whenInUse")])
        )
        #expect(try daemon.waitForStore(healthy: false, on: admin))
        creator.timeout = 1
        do {
            let reply = try creator.receive()
            if let id = reply.parameters.sessionID { acknowledged.append(id) }
            Issue.record("CreateSession was acknowledged while the store failed: \(reply.parameters)")
        } catch VarlinkClient.ClientError.timedOut {}

        daemon.crash()
        lock.release()
        try daemon.start()
        let restored = try daemon.connect().call("io.locd.Admin.ListSessions")["sessions"]?.arrayValue ?? []
        let ids = Set(restored.compactMap { $0["id"]?.stringValue })
        for id in acknowledged {
            #expect(ids.contains(id), "acknowledged session \(id) is missing after kill -9")
        }
    }

    @Test("R12: a held SetAuthorization(never) is invisible to the app: GetAuthorization, Hello and its watch")
    func heldDecisionIsInvisible() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "always")
        let app = try daemon.app("com.ex.maps")
        let watcher = try daemon.app("com.ex.maps")
        let first = try watcher.stream("io.locd.App.WatchAuthorization")
        #expect(first["authorization"]?["status"] == .string("authorizedAlways"))

        let (lock, decider) = try holdDecision(daemon, admin: admin)

        // Whatever the app hears while the decision is not stored still says what is stored.
        try app.send(VarlinkCall(method: "io.locd.App.GetAuthorization"))
        let late = try daemon.connect()
        try late.send(VarlinkCall(method: "io.locd.App.Hello", parameters: ["appId": .string("com.ex.maps")]))
        for client in [app, watcher, late] {
            client.timeout = 0.5
            do {
                let reply = try client.receive()
                #expect(reply.parameters["authorization"]?["status"] == .string("authorizedAlways"))
            } catch VarlinkClient.ClientError.timedOut {}
        }
        decider.timeout = 0.2
        #expect(throws: VarlinkClient.ClientError.timedOut) { _ = try decider.receive() }

        // Stored: now it is acknowledged, and then seen.
        lock.release()
        decider.timeout = 10
        #expect(try decider.receive().parameters["authorization"]?["status"] == .string("denied"))
        app.timeout = 10
        #expect(try app.receive().parameters["authorization"]?["status"] == .string("denied"))
        #expect(try app.call("io.locd.App.GetAuthorization")["authorization"]?["status"] == .string("denied"))
    }

    @Test("R12: while one app's decision is held, another app's Hello and reads are answered")
    func otherAppsProceed() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.connect()
        let (lock, decider) = try holdDecision(daemon, admin: admin)

        let other = try daemon.connect()
        other.timeout = 2
        let hello = try other.call("io.locd.App.Hello", ["appId": .string("com.ex.run")])
        #expect(hello["authorization"]?["status"] == .string("notDetermined"))
        #expect(try other.call("io.locd.App.ListSessions")["sessions"] == .array([]))
        decider.timeout = 0.2
        #expect(throws: VarlinkClient.ClientError.timedOut) { _ = try decider.receive() }
        lock.release()
        decider.timeout = 10
        #expect(try decider.receive().error == nil)
    }

    @Test("R13: past max-pending-writes, calls that write are refused with LimitExceeded; reads are answered")
    func pendingWritesAreBounded() throws {
        let daemon = try DaemonProcess(settings: DaemonProcess.fastLifecycle + "\n[limits]\nmax-pending-writes = 1\n")
        try daemon.start()
        let admin = try daemon.authorize("com.ex.run", "whileUsing")
        let other = try daemon.app("com.ex.run")
        let lock = try StoreLock(daemon)
        let decider = try daemon.connect()
        try decider.send(
            VarlinkCall(
                method: "io.locd.Admin.SetAuthorization",
                parameters: ["appId": .string("com.ex.maps"), "setting": .string("always")]
            )
        )
        #expect(try daemon.waitForStore(healthy: false, on: admin))

        other.timeout = 2
        #expect(try other.call("io.locd.App.GetAuthorization")["authorization"]?["status"] != nil)
        do {
            try other.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
            Issue.record("CreateSession was accepted with max-pending-writes writes waiting")
        } catch let error as VarlinkError {
            #expect(error.name == "io.locd.App.LimitExceeded")
            #expect(error.parameters["limit"] == .string("max-pending-writes"))
        }
        lock.release()
        decider.timeout = 10
        #expect(try decider.receive().error == nil)
        #expect(try daemon.waitForStore(healthy: true, on: admin))
        let created = try other.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        #expect(created.sessionID != nil)
    }

    @Test("R13: a connection that lets more than max-held-messages wait for the store is closed; others are served")
    func heldMessagesAreBounded() throws {
        let daemon = try DaemonProcess(settings: DaemonProcess.fastLifecycle + "\n[limits]\nmax-held-messages = 1\n")
        try daemon.start()
        let admin = try daemon.connect()
        let watcher = try daemon.app("com.ex.maps")
        _ = try watcher.stream("io.locd.App.WatchAuthorization")

        // Two decisions that cannot be stored: the watch has two values waiting, one more than allowed.
        let lock = try StoreLock(daemon)
        var deciders: [VarlinkClient] = []
        for setting in ["never", "whileUsing"] {
            let decider = try daemon.connect()
            try decider.send(
                VarlinkCall(
                    method: "io.locd.Admin.SetAuthorization",
                    parameters: ["appId": .string("com.ex.maps"), "setting": .string(setting)]
                )
            )
            deciders.append(decider)
        }
        watcher.timeout = 5
        #expect(throws: VarlinkClient.ClientError.closed) {
            while true { _ = try watcher.receive() }
        }
        admin.timeout = 1
        #expect(try admin.call("io.locd.Admin.Status")["status"]?["clients"] != nil)
        lock.release()
        for decider in deciders {
            decider.timeout = 10
            #expect(try decider.receive().error == nil)
        }
    }

    /// Locks the store, then sends `SetAuthorization(never)` for com.ex.maps on a connection of its own, which
    /// gets no reply while the decision is held; returns once the store reports failing.
    private func holdDecision(_ daemon: DaemonProcess, admin: VarlinkClient) throws -> (StoreLock, VarlinkClient) {
        let lock = try StoreLock(daemon)
        let decider = try daemon.connect()
        try decider.send(
            VarlinkCall(
                method: "io.locd.Admin.SetAuthorization",
                parameters: ["appId": .string("com.ex.maps"), "setting": .string("never")]
            )
        )
        #expect(try daemon.waitForStore(healthy: false, on: admin))
        return (lock, decider)
    }
}
