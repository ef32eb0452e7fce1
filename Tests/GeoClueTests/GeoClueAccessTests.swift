import Foundation
import LocationTestSupport
import Testing

/// Who may use a client, the calls GeoClue refuses, and what a peer's leaving does to its locd session.
@Suite("GeoClue2: owners, bad calls and leaving the bus", .serialized)
struct GeoClueAccessTests {
    @Test("G4: another peer's Start, Get and Set on a client answer AccessDenied")
    func anotherPeerIsDenied() throws {
        let harness = try GeoClueHarness()
        let holder = try harness.pythonRunning(["hold", "test.holder"])
        defer { holder.closeInput() }
        #expect(holder.waitFor("\"client\""), "\(holder.log)")
        let path = try #require(
            holder.log.split(separator: "\"").first { $0.hasPrefix("/org/freedesktop/GeoClue2/Client/") },
            "\(holder.log)"
        )
        let start = try harness.gdbus([
            "call", "--system", "--dest", "org.freedesktop.GeoClue2", "--object-path", String(path),
            "--method", "org.freedesktop.GeoClue2.Client.Start",
        ])
        #expect(start.status != 0)
        #expect(start.errors.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(start.errors)")
        let get = try harness.busctl([
            "get-property", "org.freedesktop.GeoClue2", String(path), "org.freedesktop.GeoClue2.Client", "DesktopId",
        ])
        #expect(get.status != 0)
        #expect(get.errors.contains("Access denied"), "\(get.errors)")
        let set = try harness.busctl([
            "set-property", "org.freedesktop.GeoClue2", String(path), "org.freedesktop.GeoClue2.Client",
            "DesktopId", "s", "intruder",
        ])
        #expect(set.status != 0)
        // Introspection stays open to all, as sd-bus gives it.
        let introspect = try harness.gdbus([
            "introspect", "--system", "--dest", "org.freedesktop.GeoClue2", "--object-path", String(path),
        ])
        #expect(introspect.status == 0, "\(introspect.errors)")
        #expect(introspect.output.contains("LocationUpdated"))
    }

    @Test("G5: Start without DesktopId answers AccessDenied")
    func startWithoutDesktopID() throws {
        let harness = try GeoClueHarness()
        let result = try harness.python(["no-desktop-id"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String ?? "").contains("DesktopId"), "\(reply)")
    }

    @Test("G5: setting Active answers InvalidArgs")
    func settingActiveIsInvalid() throws {
        let harness = try GeoClueHarness()
        let result = try harness.python(["set-active"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.InvalidArgs", "\(reply)")
    }

    @Test("G5: setting the read-only Location of a client or InUse of the Manager answers InvalidArgs")
    func readOnlyPropertiesAreInvalid() throws {
        let harness = try GeoClueHarness()
        let location = try harness.python(["set", "Location", "o", "/org/freedesktop/GeoClue2/Location/1"])
        let reply = try #require(location.objects.first, "\(location.output)\(location.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.InvalidArgs", "\(reply)")
        #expect((reply["message"] as? String)?.contains("'Location' is not writable") == true, "\(reply)")
        let inUse = try harness.busctl([
            "set-property", "org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager",
            "org.freedesktop.GeoClue2.Manager", "InUse", "b", "true",
        ])
        #expect(inUse.status != 0)
        #expect(inUse.errors.contains("not writable"), "\(inUse.errors)")
    }

    @Test(
        "G5: a value of the wrong type, an empty DesktopId or an undefined accuracy level answers InvalidArgs",
        arguments: [["DesktopId", "u", "4"], ["DesktopId", "s", ""], ["RequestedAccuracyLevel", "u", "7"]]
    )
    func badValuesAreInvalid(arguments: [String]) throws {
        let harness = try GeoClueHarness()
        let result = try harness.python(["set"] + arguments)
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.InvalidArgs", "\(reply)")
    }

    @Test(
        """
        I15: nobody's client whose DesktopId clears the screen, sets the terminal's title, breaks the line, reverses \
        the text or climbs a directory is refused with InvalidArgs naming the rule
        """,
        .enabled(if: getuid() == 0, "running nobody's client needs root"),
        arguments: [
            "org.gnome.Maps\u{1B}[2J", "org.gnome.Maps\u{1B}]0;root's terminal\u{07}", "org.gnome.Maps\ncom.ex.forged",
            "org.gnome.\u{202E}spaM", "../org.gnome.Maps", "org.gnome.Maps\u{1B}[1A\u{1B}[2K",
        ]
    )
    func hostileDesktopIDs(id: String) throws {
        let harness = try GeoClueHarness()
        let result = try harness.python(["set", "DesktopId", "s", id], asUID: 65534)
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.InvalidArgs", "\(reply)")
        let message = reply["message"] as? String ?? ""
        #expect(message.contains("I15") && message.contains("org.gnome.Maps"), "\(reply)")
        let log = harness.bridge?.log ?? ""
        #expect(!log.unicodeScalars.contains("\u{1B}"), "locd-geoclue's log holds a raw escape")
    }

    @Test("G5: the Manager answers GetAll with GeoClue's properties and introspects all four interfaces")
    func managerProperties() throws {
        let harness = try GeoClueHarness()
        let all = try harness.gdbus([
            "call", "--system", "--dest", "org.freedesktop.GeoClue2", "--object-path",
            "/org/freedesktop/GeoClue2/Manager", "--method", "org.freedesktop.DBus.Properties.GetAll",
            "org.freedesktop.GeoClue2.Manager",
        ])
        #expect(all.status == 0, "\(all.errors)")
        #expect(all.output.contains("'InUse': <false>"), "\(all.output)")
        #expect(all.output.contains("'AvailableAccuracyLevel': <uint32 8>"), "\(all.output)")
        let introspect = try harness.busctl([
            "introspect", "org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager",
        ])
        for name in ["GetClient", "CreateClient", "DeleteClient", "AddAgent", "org.freedesktop.DBus.Peer"] {
            #expect(introspect.output.contains(name), "\(name)")
        }
        let ping = try harness.busctl([
            "call", "org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager", "org.freedesktop.DBus.Peer",
            "Ping",
        ])
        #expect(ping.status == 0, "\(ping.errors)")
    }

    @Test("G6: a peer that leaves the bus without DeleteClient leaves its locd session lingering")
    func leavingPeerLeavesSessionLingering() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "gammastep", "while-using"]).status == 0)
        let result = try harness.python(["gammastep", "gammastep"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        // gammastep sets no level: GeoClue's default, city, which is served the approximate cell (G2).
        #expect(location["Accuracy"] as? Double == 5000, "\(location)")
        #expect(abs((location["Latitude"] as? Double ?? 0) - GeoClueHarness.latitude) < 0.1, "\(location)")
        let lingering = try eventually(timeout: 10, every: 0.05) {
            try harness.sessions(of: "gammastep").contains { $0["state"] as? String == "lingering" }
        }
        #expect(lingering, "\((try? harness.locctl(["sessions"]).output) ?? "")")
    }

    @Test("G6: an app that comes back inside the relaunch window takes its lingering session back")
    func relaunchTakesSessionBack() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "gammastep", "while-using"]).status == 0)
        for run in 1...2 {
            let result = try harness.python(["gammastep", "gammastep"])
            #expect(result.objects.first?["Accuracy"] as? Double == 5000, "run \(run): \(result.output)")
            let lingering = try eventually(timeout: 10, every: 0.05) {
                try harness.sessions(of: "gammastep").contains { $0["state"] as? String == "lingering" }
            }
            #expect(lingering, "run \(run)")
        }
        // One session, resumed by the second run and left again: not a second one beside the first.
        let sessions = try harness.sessions(of: "gammastep")
        #expect(sessions.count == 1, "\((try? harness.locctl(["sessions"]).output) ?? "")")
    }

    @Test("G6: DeleteClient ends the locd session: nothing lingers")
    func deleteClientEndsSession() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.deleted", "while-using"]).status == 0)
        let result = try harness.python(["where-am-i", "test.deleted", "8"])
        #expect(result.objects.first?["Latitude"] as? Double == GeoClueHarness.latitude, "\(result.output)")
        let gone = try eventually(timeout: 10, every: 0.05) { try harness.sessions(of: "test.deleted").isEmpty }
        #expect(gone, "\((try? harness.locctl(["sessions"]).output) ?? "")")
    }

    @Test("G8: a peer speaks for 4 app ids at once; a fifth is LimitsExceeded until one of them is deleted")
    func appIDsPerPeer() throws {
        let harness = try GeoClueHarness()
        let apps = ["test.allowed", "test.city", "test.holder", "test.deleted", "test.revoked"]
        for app in apps { #expect(try harness.locctl(["auth", app, "while-using"]).status == 0) }
        let result = try harness.python(["apps"] + apps)
        let replies = result.objects
        #expect(replies.count == 6, "\(result.output)\(result.errors)")
        for reply in replies.prefix(4) { #expect(reply["started"] as? Bool == true, "\(reply)") }
        let refused = replies.dropFirst(4).first ?? [:]
        #expect(refused["error"] as? String == "org.freedesktop.DBus.Error.LimitsExceeded", "\(refused)")
        #expect((refused["message"] as? String ?? "").contains("4 app ids"), "\(refused)")
        // The deleted client's connection is idle (G6) and makes room at once.
        #expect(replies.last?["started"] as? Bool == true, "\(replies.last ?? [:])")
        #expect(replies.last?["app"] as? String == "test.revoked")
    }

    @Test(
        "G6: a peer's next client of an app reuses its connection; DeleteClient ends the session, idleness the connection"
    )
    func idleConnectionIsReusedThenClosed() throws {
        let harness = try GeoClueHarness()
        let bridge = try #require(harness.bridge)
        #expect(try harness.locctl(["auth", "test.deleted", "while-using"]).status == 0)
        let client = try harness.pythonRunning(["twice", "test.deleted"])
        defer { client.closeInput() }
        #expect(client.waitFor("\"deleted\": 2"), "\(client.log)")
        #expect(!bridge.log.contains("closing idle locd connections"), "closed at once: \(bridge.log)")
        #expect(client.log.components(separatedBy: "\"Latitude\"").count == 3, "\(client.log)")
        let ended = try eventually(timeout: 10, every: 0.05) { try harness.sessions(of: "test.deleted").isEmpty }
        #expect(ended, "\((try? harness.locctl(["sessions"]).output) ?? "")")
        #expect(bridge.log.components(separatedBy: "a locd connection for the peer's app").count == 2, "\(bridge.log)")
        // The peer is still on the bus: only the idle timer closes the connection.
        #expect(bridge.waitFor("closing idle locd connections", timeout: 20), "\(bridge.log)")
        #expect(!bridge.log.contains("peer left"), "\(bridge.log)")
    }

    @Test("G7: InUse is true while a client is active and false once its peer has left")
    func inUseFollowsActiveClients() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "test.holder", "while-using"]).status == 0)
        #expect(try harness.inUse() == "b false")
        let holder = try harness.pythonRunning(["hold-started", "test.holder"])
        #expect(holder.waitFor("\"started\""), "\(holder.log)")
        #expect(try harness.inUse() == "b true")
        holder.closeInput()
        #expect(try eventually(timeout: 10, every: 0.05) { try harness.inUse() == "b false" })
    }

    @Test(
        "G1: the real where-am-i gets its location through locd-geoclue",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/libexec/geoclue-2.0/demos/where-am-i"))
    )
    func realWhereAmI() throws {
        let harness = try GeoClueHarness()
        #expect(try harness.locctl(["auth", "geoclue-where-am-i", "while-using"]).status == 0)
        let result = try Command.run(
            ["/usr/libexec/geoclue-2.0/demos/where-am-i", "-t", "2", "-a", "8"],
            environment: harness.busEnvironment
        )
        #expect(result.output.contains("Latitude:    52.520000"), "\(result.output)\(result.errors)")
        #expect(result.output.contains("Longitude:   13.405000"), "\(result.output)")
    }
}
