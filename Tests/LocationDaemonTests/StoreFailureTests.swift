import Foundation
import LocationTestSupport
import Testing
import Varlink

/// SEMANTICS §10 at run time: a store that cannot be written.
@Suite("Store failure", .serialized)
struct StoreFailureTests {
    @Test("R1: while the store cannot be written locd serves from memory, says so, and acknowledges no decision")
    func storeLockedAtRunTime() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let app = try daemon.app("com.ex.maps")

        // Another process takes the store's write lock.
        let lock = try StoreLock(daemon)

        let admin = try daemon.connect()
        admin.timeout = 1.5
        try admin.send(
            VarlinkCall(
                method: "io.locd.Admin.SetAuthorization",
                parameters: ["appId": .string("com.ex.maps"), "setting": .string("always")]
            )
        )
        #expect(throws: VarlinkClient.ClientError.timedOut) { _ = try admin.receive() }

        // Still serving: reads answer from memory, and the status says the store is failing (once the commit
        // has given up waiting for the lock). The app the decision is about hears nothing until it is stored
        // (R12); another app is answered.
        let observer = try daemon.connect()
        #expect(try daemon.waitForStore(healthy: false, on: observer))
        #expect(try daemon.app("com.ex.run").call("io.locd.App.ListSessions")["sessions"] == .array([]))

        // The lock goes; the next retry stores the decision and only then is it acknowledged.
        lock.release()
        admin.timeout = 10
        let reply = try admin.receive()
        #expect(reply.error == nil)
        #expect(reply.parameters["authorization"]?["status"] == .string("authorizedAlways"))
        #expect(try observer.call("io.locd.Admin.Status")["status"]?["storeHealthy"] == .bool(true))
        #expect(
            try app.call("io.locd.App.GetAuthorization")["authorization"]?["status"] == .string("authorizedAlways")
        )
        daemon.crash()
        try daemon.start()
        let after = try daemon.app("com.ex.maps")
        #expect(
            try after.call("io.locd.App.GetAuthorization")["authorization"]?["status"] == .string("authorizedAlways")
        )
    }
}
