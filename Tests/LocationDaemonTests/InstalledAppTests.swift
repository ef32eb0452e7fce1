import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// H2 through the real daemon: every `io.locd.Admin` call that names an app and a user agrees on which apps that
/// user has. An installed app the user never ran is known, at its defaults; an id with no manifest that only another
/// user has, and an id nobody has, are `NoSuchApp`.
@Suite("Installed apps are known to every user", .serialized)
struct InstalledAppTests {
    /// Two uids no system account uses: ordinary users to the kernel and to locd.
    private static let alice: UInt32 = 61_011
    private static let bob: UInt32 = 61_012
    private static let asRoot = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    /// An installed app (a manifest) Bob never ran, Alice's app of an id with no manifest, and an id nobody has.
    private static let installed = "com.ex.maps"
    private static let alices = "com.ex.alices-own"
    private static let unknown = "com.ex.nobodys"
    private static let noSuchApp = "io.locd.Admin.NoSuchApp"

    /// Connection numbers of a person: an app's process and a settings screen.
    private static let app = 1
    private static let settings = 2

    /// A daemon that lets an app with no manifest say `Hello` (M1), with Alice's app of such an id running, and Bob,
    /// who has run nothing, and root.
    private static func scene() throws -> (DaemonProcess, alice: Person, bob: Person, root: Person) {
        let settings = DaemonProcess.fastLifecycle.replacingOccurrences(
            of: "allow-unknown-apps = false",
            with: "allow-unknown-apps = true"
        )
        let daemon = try DaemonProcess(settings: settings)
        try daemon.start()
        let alice = try Person(socket: daemon.socketPath, uid: alice)
        let hello = try alice.call(
            app,
            "io.locd.App.Hello",
            ["appId": .string(alices), "state": .string("foreground")]
        )
        #expect(hello.error == nil, "\(hello)")
        return (
            daemon, alice, try Person(socket: daemon.socketPath, uid: bob),
            try Person(socket: daemon.socketPath, uid: 0)
        )
    }

    /// Bob's own call, and root's naming Bob, with `parameters` and each app id in turn: what each answered.
    private static func asked(
        _ bob: Person,
        _ root: Person,
        _ method: String,
        _ parameters: JSONObject = [:]
    ) throws -> [(who: String, appID: String, reply: VarlinkReply)] {
        var replies: [(String, String, VarlinkReply)] = []
        for appID in [installed, alices, unknown] {
            var own = parameters
            own["appId"] = .string(appID)
            var named = own
            named["user"] = .int(Int64(Self.bob))
            if method != "io.locd.Admin.LocationButton" {
                replies.append(("bob", appID, try bob.call(Self.settings, method, own)))
            }
            replies.append(("root for bob", appID, try root.call(Self.settings, method, named)))
        }
        return replies
    }

    /// Each reply for the installed app is `check`ed; those for Alice's app and the unknown id are `NoSuchApp`.
    private static func expectAgreement(
        _ replies: [(who: String, appID: String, reply: VarlinkReply)],
        installedAnswer check: (VarlinkReply) -> Bool
    ) {
        for (who, appID, reply) in replies {
            if appID == installed {
                #expect(check(reply), "\(who), \(appID): \(reply)")
            } else {
                #expect(reply.error == noSuchApp, "\(who), \(appID): \(reply)")
            }
        }
    }

    @Test(
        "H2, P11: LocationButton for an installed app the user never ran returns that user's record at its defaults",
        .enabled(if: asRoot, "running two users' processes needs root")
    )
    func locationButton() throws {
        let (daemon, alice, bob, root) = try Self.scene()
        defer { withExtendedLifetime((daemon, alice)) {} }
        // As reported: an administrator's press for an installed app before any Hello of theirs.
        let rootsOwn = try root.call(
            Self.settings,
            "io.locd.Admin.LocationButton",
            ["appId": .string(Self.installed), "user": .int(0)]
        )
        #expect(rootsOwn.parameters["authorization"]?["status"] == .string("notDetermined"), "\(rootsOwn)")
        let replies = try Self.asked(bob, root, "io.locd.Admin.LocationButton")
        Self.expectAgreement(replies) { $0.parameters["authorization"]?["status"] == .string("notDetermined") }
        // Not in the foreground: the press changed nothing (P11), and made no app of Bob's.
        let admin = try daemon.connect()
        let apps = try admin.call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        #expect(!apps.contains { $0["user"] == .int(Int64(Self.bob)) }, "\(apps)")
    }

    @Test(
        "H2: SetAppState of an installed app the user never ran says it is not running; another's or no app is NoSuchApp",
        .enabled(if: asRoot, "running two users' processes needs root")
    )
    func setAppState() throws {
        let (daemon, alice, bob, root) = try Self.scene()
        defer { withExtendedLifetime((daemon, alice)) {} }
        let replies = try Self.asked(bob, root, "io.locd.Admin.SetAppState", ["state": .string("background")])
        Self.expectAgreement(replies) { $0.error == "org.varlink.service.InvalidParameter" }
    }

    @Test(
        "H2: SetAuthorization of an installed app the user never ran makes that user's app; another's or no app is NoSuchApp",
        .enabled(if: asRoot, "running two users' processes needs root")
    )
    func setAuthorization() throws {
        let (daemon, alice, bob, root) = try Self.scene()
        defer { withExtendedLifetime((daemon, alice)) {} }
        let replies = try Self.asked(bob, root, "io.locd.Admin.SetAuthorization", ["setting": .string("never")])
        Self.expectAgreement(replies) { $0.parameters["authorization"]?["status"] == .string("denied") }
    }

    @Test(
        "H2: ListSessions of an installed app the user never ran is empty; another's or no app is NoSuchApp",
        .enabled(if: asRoot, "running two users' processes needs root")
    )
    func listSessions() throws {
        let (daemon, alice, bob, root) = try Self.scene()
        defer { withExtendedLifetime((daemon, alice)) {} }
        let replies = try Self.asked(bob, root, "io.locd.Admin.ListSessions")
        Self.expectAgreement(replies) { $0.error == nil && $0.parameters["sessions"]?.arrayValue == [] }
    }

    @Test(
        "H2, H4: ListApps of a user lists each installed app they never ran at its defaults, never another user's app",
        .enabled(if: asRoot, "running two users' processes needs root")
    )
    func listApps() throws {
        let (daemon, alice, bob, root) = try Self.scene()
        defer { withExtendedLifetime((daemon, alice)) {} }
        let own = try bob.call(Self.settings, "io.locd.Admin.ListApps")
        let named = try root.call(Self.settings, "io.locd.Admin.ListApps", ["user": .int(Int64(Self.bob))])
        for reply in [own, named] {
            let apps = reply.parameters["apps"]?.arrayValue ?? []
            let maps = apps.first { $0["appId"] == .string(Self.installed) }
            #expect(maps?["user"] == .int(Int64(Self.bob)), "\(reply)")
            #expect(maps?["authorization"]?["status"] == .string("notDetermined"), "\(reply)")
            #expect(maps?["state"] == .string("notRunning"), "\(reply)")
            #expect(apps.allSatisfy { $0["user"] == .int(Int64(Self.bob)) }, "\(reply)")
            #expect(!apps.contains { $0["appId"] == .string(Self.alices) || $0["appId"] == .string(Self.unknown) })
        }
    }
}
