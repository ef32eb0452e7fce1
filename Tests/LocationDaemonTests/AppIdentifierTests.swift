import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// I15 and I16 through the real daemon: what an app id may be, attacked by an ordinary user (nobody, through
/// `setpriv`), and what an administrator's terminal shows of an id a store from before I15 may hold.
@Suite("App ids", .serialized)
struct AppIdentifierTests {
    private static let asRoot = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    /// Ids that would redraw an administrator's terminal or a prompt's title: clear the screen, set the terminal's
    /// title (OSC), move up and erase a line, forge a table row after a line break, reverse the text that follows.
    static let hostileIDs = [
        "com.ex.maps\u{1B}[2J",
        "com.ex.maps\u{1B}]0;root's terminal\u{07}",
        "com.ex.maps\u{1B}[1A\u{1B}[2K",
        "com.ex.maps\ncom.ex.forged  root  foreground  yes  authorizedAlways",
        "com.ex.\u{202E}spam",
        "com.ex.maps\u{9B}2J",
        "../com.ex.maps",
        "com ex maps",
        "",
        String(repeating: "a", count: 256),
    ]

    /// Ids of the kinds I15 names: desktop file ids, reverse-DNS and Flatpak ids, a snap instance, plain names.
    static let goodIDs = [
        "gammastep", "gnome-datetime-panel", "geoclue-where-am-i", "org.gnome.Maps", "firefox_esr",
        "_underscore.first", String(repeating: "a", count: 255),
    ]

    @Test(
        """
        I15: nobody's Hello with an id holding a terminal escape, a line break, a bidi override, a slash, a space or \
        256 bytes is InvalidParameter naming appId and the rule; ids of every kind the rule names are taken
        """,
        .enabled(if: asRoot, "running nobody's process needs root")
    )
    func helloRefusesHostileIDs() throws {
        // M3: apps without a manifest may say Hello, so that nothing but I15 stands in the way.
        let settings = DaemonProcess.fastLifecycle.replacing(
            "allow-unknown-apps = false",
            with: "allow-unknown-apps = true"
        )
        let daemon = try DaemonProcess(settings: settings)
        try daemon.start()
        let nobody = try Person(socket: daemon.socketPath, uid: 65534)
        for (index, id) in Self.hostileIDs.enumerated() {
            // A connection of its own for each: a refused Hello binds nothing, but the rule is checked first.
            let reply = try nobody.call(index + 1, "io.locd.App.Hello", ["appId": .string(id)])
            #expect(reply.error == "org.varlink.service.InvalidParameter", "\(id.debugDescription): \(reply)")
            #expect(reply.parameters["parameter"] == .string("appId"))
            let message = reply.parameters["message"]?.stringValue ?? ""
            #expect(message.contains("I15") && message.contains("org.gnome.Maps"), "\(message)")
        }
        for (index, id) in Self.goodIDs.enumerated() {
            let reply = try nobody.call(100 + index, "io.locd.App.Hello", ["appId": .string(id)])
            #expect(reply.error == nil, "\(id): \(reply)")
        }
        // None of the hostile ids became an app; an administrator's call naming one is refused the same way.
        let admin = try daemon.connect()
        let ids = try admin.call("io.locd.Admin.ListApps")["apps"]?.arrayValue?.compactMap { $0["appId"]?.stringValue }
        #expect(Set(ids ?? []).isDisjoint(with: Self.hostileIDs))
        for method in ["io.locd.Admin.SetAuthorization", "io.locd.Admin.SetAppState"] {
            var parameters: JSONObject = ["appId": .string(Self.hostileIDs[0])]
            parameters["setting"] = method.hasSuffix("Authorization") ? .string("never") : nil
            parameters["state"] = method.hasSuffix("AppState") ? .string("background") : nil
            do {
                _ = try admin.call(method, parameters)
                Issue.record("\(method) took an id that is no app id")
            } catch let error as VarlinkError {
                #expect(error.name == "org.varlink.service.InvalidParameter", "\(error)")
            }
        }
        #expect(!daemon.logSoFar.unicodeScalars.contains("\u{1B}"), "locd's log holds a raw escape")
    }

    @Test(
        """
        I16: an app whose id a store from before I15 holds (ESC[2J, an OSC title, cursor-up and erase, a forged row) \
        is listed by locctl apps with each control character escaped, and its JSON stays JSON
        """,
        .enabled(if: asRoot, "running nobody's process needs root")
    )
    func hostileStoredIDShownEscaped() throws {
        let daemon = try DaemonProcess()
        let hostile = "com.ex.x\u{1B}[2J\u{1B}]0;owned\u{07}\u{1B}[1A\u{1B}[2K\ncom.ex.forged  -  foreground"
        try StoreBeforeOwners.write(alwaysFor: [hostile], in: daemon)
        try daemon.start()

        let table = try LocctlBinary.run(["apps", "--no-legend"], socket: daemon.socketPath)
        #expect(table.status == 0, "\(table.errors)")
        #expect(!table.output.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(table.output)")
        let escaped = "com.ex.x\\u{1b}[2J\\u{1b}]0;owned\\u{7}\\u{1b}[1A\\u{1b}[2K\\u{a}com.ex.forged  -  foreground"
        #expect(table.output.contains(escaped), "\(table.output)")
        // One row per app: the forged row is part of the escaped id, not a line of its own.
        #expect(!table.output.split(separator: "\n").contains { $0.hasPrefix("com.ex.forged") })
        let json = try LocctlBinary.run(["apps", "--json"], socket: daemon.socketPath)
        #expect(json.output.contains("com.ex.x\\u001b[2J"), "\(json.output)")
        // No Admin call can name it, but ForgetApps removes it with the other apps whose maker is unknown (F20).
        let admin = try daemon.connect()
        #expect(try admin.call("io.locd.Admin.ForgetApps", ["ownerUnknown": .bool(true)])["forgotten"] == .int(1))
        let left = try admin.call("io.locd.Admin.ListApps")["apps"]?.arrayValue?.compactMap { $0["appId"]?.stringValue }
        #expect(!(left ?? []).contains(hostile))
        #expect(!daemon.logSoFar.unicodeScalars.contains("\u{1B}"), "locd's log holds a raw escape")
    }
}
