import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// U4 at run time: conditions in the real store, across a restart and while the store fails.
@Suite("Monitor persistence", .serialized)
struct MonitorPersistenceTests {
    static let condition: JSONValue = .object([
        "latitude": .double(35.681236), "longitude": .double(139.767125), "radius": .double(200),
    ])

    /// The flags of a `MonitorEvents` reply.
    private func flags(_ reply: JSONObject) -> [String] {
        reply["event"]?["diagnostic"]?["flags"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    @Test("U4: conditions outlive a daemon restart, in their monitors, without the app adding them again")
    func conditionsOutliveRestart() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.authorize("com.ex.maps", "always")
        let app = try daemon.app("com.ex.maps")
        for identifier in ["home", "gone"] {
            try app.call(
                "io.locd.App.AddCondition",
                ["monitor": .string("places"), "identifier": .string(identifier), "condition": Self.condition]
            )
        }
        try app.call("io.locd.App.RemoveCondition", ["monitor": .string("places"), "identifier": .string("gone")])
        #expect(daemon.stop() == 0)

        try daemon.start()
        let streamer = try daemon.app("com.ex.maps")
        let first = try streamer.stream("io.locd.App.MonitorEvents", ["monitor": .string("places")])
        #expect(first["event"]?["identifier"] == .string(""), "first: the monitor's own diagnostics")
        let home = try streamer.next()
        #expect(home["event"]?["identifier"] == .string("home"))
        #expect(home["event"]?["monitor"] == .string("places"))
        #expect(home["event"]?["state"] == .string("unknown"))
        // Nothing else is in the monitor ("gone" stayed removed): past the provider's evaluation of "home" and
        // the monitor's own diagnostics, the next reply is the one a new condition causes.
        let again = try daemon.app("com.ex.maps")
        try again.call(
            "io.locd.App.AddCondition",
            ["monitor": .string("places"), "identifier": .string("new"), "condition": Self.condition]
        )
        let next = try streamer.next { !["", "home"].contains($0["event"]?["identifier"]?.stringValue) }
        #expect(next["event"]?["identifier"] == .string("new"))
    }

    @Test("U4: while the store cannot be written, monitor events carry persistenceUnavailable; after, they do not")
    func persistenceUnavailable() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.authorize("com.ex.maps", "always")
        let app = try daemon.app("com.ex.maps")
        let streamer = try daemon.app("com.ex.maps")
        let first = try streamer.stream("io.locd.App.MonitorEvents", ["monitor": .string("places")])
        #expect(flags(first) == [])

        // Another process takes the store's write lock.
        let lock = try StoreLock(daemon)

        // Adding a condition needs a write, which fails: the monitor says so, and the condition is served
        // from memory meanwhile.
        try app.call(
            "io.locd.App.AddCondition",
            ["monitor": .string("places"), "identifier": .string("home"), "condition": Self.condition]
        )
        let failing = try streamer.next(until: { flags($0).contains("persistenceUnavailable") })
        #expect(failing["event"]?["identifier"] == .string(""), "the monitor's own flags changed")

        lock.release()
        let recovered = try streamer.next(until: { $0["event"]?["identifier"] == .string("") })
        #expect(!flags(recovered).contains("persistenceUnavailable"))
        #expect(try admin.call("io.locd.Admin.Status")["status"]?["storeHealthy"] == .bool(true))
        daemon.crash()
        try daemon.start()
        let back = try daemon.app("com.ex.maps")
        _ = try back.stream("io.locd.App.MonitorEvents", ["monitor": .string("places")])
        #expect(try back.next()["event"]?["identifier"] == .string("home"), "the retried write was stored")
    }
}
