import Foundation
import LocationTestSupport
import Testing

@testable import LocationAgent

#if canImport(Glibc)
import Glibc
#endif

/// The KWin desktop source against KWin 5.27 itself, headless, with the project's script, and real GTK 3 windows whose
/// activation a one-shot KWin script moves as a person's click would.
@Suite("The KWin desktop source", .serialized)
struct KWinSourceTests {
    private static let canRun = KWinSession.isAvailable && getuid() == 0

    @Test(
        "L18: the picture follows the activation, each window named by its app id with KWin's pid; minimised is hidden",
        .enabled(if: canRun, "needs root, kwin-wayland, gdbus and python3-gi's GTK 3 (.ci/install-deps --tests)")
    )
    func followsTheActivation() throws {
        let session = try KWinSession()
        let maps = try session.openWindow("io.locd.TestMaps")
        let weather = try session.openWindow("io.locd.TestWeather")
        let reader = DesktopPictureReader(try KWinSource(address: session.address, scriptPath: session.scriptPath))
        #expect(reader.source.name == "kwin")
        for (app, window) in [("io.locd.TestMaps", maps), ("io.locd.TestWeather", weather), ("io.locd.TestMaps", maps)]
        {
            try session.activate(app)
            let followed = try reader.waitFor(timeout: 10) { picture in
                picture.windows.count == 2 && picture.windows.first { $0.focused }?.appID == app
            }
            #expect(followed, "\(reader.pictures.last.map(String.init(describing:)) ?? "no picture") \(session.log)")
            #expect(reader.focused?.pid == window.process.processIdentifier)
            #expect(reader.pictures.last?.locked == false)
        }
        try session.minimize("io.locd.TestWeather")
        #expect(
            try reader.waitFor(timeout: 10) { picture in
                picture.windows.first { $0.appID == "io.locd.TestWeather" }?.minimized == true
            }
        )
        // An idle desktop wakes nobody: half a second of the descriptor's silence.
        let wakeUps = reader.wakeUps
        try reader.readOnce(milliseconds: 500)
        #expect(reader.wakeUps == wakeUps)
    }

    @Test(
        "L18: a Report from any caller but the owner of org.kde.KWin is refused and changes nothing",
        .enabled(if: canRun, "needs root, kwin-wayland, gdbus and python3-gi's GTK 3 (.ci/install-deps --tests)")
    )
    func forgedReportIsIgnored() throws {
        let session = try KWinSession()
        _ = try session.openWindow("io.locd.TestMaps")
        let reader = DesktopPictureReader(try KWinSource(address: session.address, scriptPath: session.scriptPath))
        try session.activate("io.locd.TestMaps")
        #expect(try reader.waitFor(timeout: 10) { $0.windows.first { $0.focused }?.appID == "io.locd.TestMaps" })
        // An app of the person's calls the source as the script would, naming itself in front.
        let forged =
            #"{"locked":false,"windows":[{"pid":1,"wmClass":"io.locd.Liar","focused":true,"minimized":false}]}"#
        let caller = try session.start(
            [
                "/usr/bin/gdbus", "call", "--session", "--dest", KWinSource.serviceName, "--object-path",
                KWinSource.path, "--method", KWinSource.interface + ".Report", forged,
            ],
            log: "forger.log"
        )
        // The source answers the call as it reads: read until the caller has its answer.
        _ = try reader.waitFor(timeout: 5) { _ in !caller.process.isRunning }
        #expect(!caller.process.isRunning)
        #expect(caller.process.terminationStatus != 0)
        #expect(caller.log.contains("AccessDenied"), "\(caller.log)")
        try reader.readOnce(milliseconds: 500)
        #expect(reader.focused?.appID == "io.locd.TestMaps")
        #expect(!reader.pictures.contains { $0.windows.contains { $0.appID == "io.locd.Liar" } })
    }

    @Test(
        "L18: the session is locked once KWin's own screen locker says so, and not when another program says it",
        .enabled(if: canRun, "needs root, kwin-wayland, gdbus and python3-gi's GTK 3 (.ci/install-deps --tests)")
    )
    func lockScreen() throws {
        let session = try KWinSession(lockScreen: true)
        _ = try session.openWindow("io.locd.TestMaps")
        let reader = DesktopPictureReader(try KWinSource(address: session.address, scriptPath: session.scriptPath))
        try session.activate("io.locd.TestMaps")
        #expect(try reader.waitFor(timeout: 10) { $0.windows.first { $0.focused }?.appID == "io.locd.TestMaps" })
        #expect(reader.pictures.last?.locked == false)
        // An app of the person's says the screen locked, on the locker's own path and interface.
        let emitted = try session.run([
            "/usr/bin/gdbus", "emit", "--session", "--object-path", "/ScreenSaver", "--signal",
            "org.freedesktop.ScreenSaver.ActiveChanged", "true",
        ])
        #expect(emitted.status == 0, "\(emitted.output)")
        try reader.readOnce(milliseconds: 500)
        #expect(!reader.pictures.contains { $0.locked })
        try session.lock()
        #expect(try reader.waitFor(timeout: 10) { $0.locked }, "\(session.log)")
    }

    @Test(
        "L18: a script an agent left loaded when it ended without unloading it is replaced, and the picture follows",
        .enabled(if: canRun, "needs root, kwin-wayland, gdbus and python3-gi's GTK 3 (.ci/install-deps --tests)")
    )
    func leftScriptIsReplaced() throws {
        let session = try KWinSession()
        _ = try session.openWindow("io.locd.TestMaps")
        // An agent that was killed left its script loaded in KWin, under the same plugin name.
        let left = try session.run([
            "/usr/bin/gdbus", "call", "--session", "--dest", "org.kde.KWin", "--object-path", "/Scripting", "--method",
            "org.kde.kwin.Scripting.loadScript", session.scriptPath, KWinSource.pluginName,
        ])
        #expect(left.status == 0 && session.scriptLoaded(KWinSource.pluginName) == true, "\(left.output)")
        let reader = DesktopPictureReader(try KWinSource(address: session.address, scriptPath: session.scriptPath))
        try session.activate("io.locd.TestMaps")
        #expect(try reader.waitFor(timeout: 10) { $0.windows.first { $0.focused }?.appID == "io.locd.TestMaps" })
    }
}
