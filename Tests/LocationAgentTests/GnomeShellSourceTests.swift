import Foundation
import LocationTestSupport
import Testing

@testable import LocationAgent

#if canImport(Glibc)
import Glibc
#endif

/// The GNOME Shell desktop source against GNOME Shell 43 itself, headless, with the project's extension enabled beside
/// another, and real GTK 3 windows whose focus the other extension moves as a person's click would.
@Suite("The GNOME Shell desktop source", .serialized)
struct GnomeShellSourceTests {
    private static let canRun = GnomeSession.isAvailable && getuid() == 0

    @Test(
        "L16: the picture follows the focus, each window named by its GTK application id with the shell's pid",
        .enabled(if: canRun, "needs root, gnome-shell, gdbus and python3-gi's GTK 3 (.ci/install-deps --tests)")
    )
    func followsTheFocus() throws {
        let session = try GnomeSession()
        let maps = try session.openWindow("io.locd.TestMaps")
        let weather = try session.openWindow("io.locd.TestWeather")
        let reader = DesktopPictureReader(try GnomeShellSource(address: session.address))
        #expect(reader.source.name == "gnome-shell")
        for (app, window) in [("io.locd.TestMaps", maps), ("io.locd.TestWeather", weather), ("io.locd.TestMaps", maps)]
        {
            // Asked again while it has not followed: a window the shell maps late takes the focus when it shows.
            var followed = false
            for _ in 0..<6 where !followed {
                try session.drive("Activate", app)
                followed = try reader.waitFor(timeout: 5) { picture in
                    picture.windows.count == 2 && picture.windows.first { $0.focused }?.appID == app
                }
            }
            #expect(followed, "\(reader.pictures.last.map(String.init(describing:)) ?? "no picture")")
            #expect(reader.focused?.pid == window.process.processIdentifier)
            #expect(reader.pictures.last?.locked == false)
        }
        try session.drive("Minimize", "io.locd.TestWeather")
        #expect(
            try reader.waitFor(timeout: 30) { picture in
                picture.windows.first { $0.appID == "io.locd.TestWeather" }?.minimized == true
            }
        )
        // An idle desktop wakes nobody: half a second of the descriptor's silence.
        let wakeUps = reader.wakeUps
        try reader.readOnce(milliseconds: 500)
        #expect(reader.wakeUps == wakeUps)
    }

    @Test(
        "L16: a PictureChanged from any sender but the owner of org.gnome.Shell changes nothing",
        .enabled(if: canRun, "needs root, gnome-shell, gdbus and python3-gi's GTK 3 (.ci/install-deps --tests)")
    )
    func forgedSignalIsIgnored() throws {
        let session = try GnomeSession()
        _ = try session.openWindow("io.locd.TestMaps")
        let reader = DesktopPictureReader(try GnomeShellSource(address: session.address))
        try session.drive("Activate", "io.locd.TestMaps")
        #expect(try reader.waitFor(timeout: 30) { $0.windows.first { $0.focused }?.appID == "io.locd.TestMaps" })
        // An app of the person's emits the signal, naming itself in front and the session unlocked.
        let forged =
            #"{"locked":false,"windows":[{"pid":1,"wmClass":"io.locd.Liar","focused":true,"minimized":false}]}"#
        let emitted = try session.run([
            "/usr/bin/gdbus", "emit", "--session", "--object-path", GnomeShellSource.path, "--signal",
            GnomeShellSource.interface + ".PictureChanged", "'\(forged)'",
        ])
        #expect(emitted.status == 0, "\(emitted.output)")
        try reader.readOnce(milliseconds: 1000)
        #expect(reader.focused?.appID == "io.locd.TestMaps")
        #expect(!reader.pictures.contains { $0.windows.contains { $0.appID == "io.locd.Liar" } })
    }
}
