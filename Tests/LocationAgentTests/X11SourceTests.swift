import Foundation
import LocationTestSupport
import Testing

@testable import LocationAgent

#if canImport(Glibc)
import Glibc
#endif

/// The X11 desktop source against a real X server and window manager: Xvfb and Openbox of an ordinary user, with real
/// xterm windows whose focus xdotool moves as a person's clicks would.
@Suite("The X11 desktop source", .serialized)
struct X11SourceTests {
    private static let canRun = EWMHDesktop.isAvailable && getuid() == 0
    private static let person: UInt32 = 61_041

    @Test(
        "L15: the picture follows the active window, named by its WM_CLASS class and the pid the X server knows",
        .enabled(if: canRun, "needs root, Xvfb, openbox, xterm, xdotool and xprop (.ci/install-deps --tests)")
    )
    func followsTheActiveWindow() throws {
        let desktop = try EWMHDesktop(uid: Self.person)
        let first = try desktop.openTerminal(class: "XTermFirst")
        let second = try desktop.openTerminal(class: "XTermSecond")
        let reader = DesktopPictureReader(try X11Source(display: desktop.display))
        #expect(reader.source.name == "x11")
        for (terminal, windowClass) in [(first, "XTermFirst"), (second, "XTermSecond"), (first, "XTermFirst")] {
            try desktop.xdotool("windowactivate", "--sync", terminal.window)
            let followed = try reader.waitFor {
                $0.windows.count == 2 && $0.windows.first { $0.focused }?.appID == windowClass
            }
            #expect(followed, "\(reader.pictures.last.map(String.init(describing:)) ?? "no picture")")
            #expect(reader.focused?.pid == terminal.process.process.processIdentifier)
            #expect(reader.pictures.last?.windows.filter(\.focused).count == 1)
        }
        // L15: between two windows the active window passes through None, which no picture shows.
        #expect(reader.pictures.allSatisfy { $0.windows.contains(where: \.focused) })
        // An idle desktop wakes nobody: half a second of the descriptor's silence.
        let wakeUps = reader.wakeUps
        try reader.readOnce(milliseconds: 500)
        #expect(reader.wakeUps == wakeUps)
    }

    @Test(
        "L15: a window whose _NET_WM_PID names another process is known by the pid of the client that made it",
        .enabled(if: canRun, "needs root, Xvfb, openbox, xterm, xdotool and xprop (.ci/install-deps --tests)")
    )
    func forgedPidIsIgnored() throws {
        let desktop = try EWMHDesktop(uid: Self.person)
        let victim = try desktop.openTerminal(class: "XTermVictim")
        let liar = try desktop.openTerminal(class: "XTermLiar")
        let victimPid = victim.process.process.processIdentifier
        // The liar's window says it belongs to the victim's process, as any client of the display may say.
        let forged = try desktop.run([
            "/usr/bin/xprop", "-id", liar.window, "-f", "_NET_WM_PID", "32c", "-set", "_NET_WM_PID", "\(victimPid)",
        ])
        #expect(forged.status == 0, "\(forged.output)")
        let said = try desktop.run(["/usr/bin/xprop", "-id", liar.window, "_NET_WM_PID"])
        #expect(said.output.contains("= \(victimPid)"), "\(said.output)")
        let reader = DesktopPictureReader(try X11Source(display: desktop.display))
        try desktop.xdotool("windowactivate", "--sync", liar.window)
        #expect(try reader.waitFor { $0.windows.first { $0.focused }?.appID == "XTermLiar" })
        #expect(reader.focused?.pid == liar.process.process.processIdentifier)
        #expect(reader.pictures.last?.windows.first { $0.appID == "XTermVictim" }?.pid == victimPid)
    }

    @Test(
        "L15: a minimised window is minimized in the picture, and is not once it is shown again",
        .enabled(if: canRun, "needs root, Xvfb, openbox, xterm, xdotool and xprop (.ci/install-deps --tests)")
    )
    func minimisedWindow() throws {
        let desktop = try EWMHDesktop(uid: Self.person)
        let shown = try desktop.openTerminal(class: "XTermShown")
        let hidden = try desktop.openTerminal(class: "XTermHidden")
        let reader = DesktopPictureReader(try X11Source(display: desktop.display))
        try desktop.xdotool("windowminimize", "--sync", hidden.window)
        let minimised = try reader.waitFor { picture in
            picture.windows.first { $0.appID == "XTermHidden" }?.minimized == true
        }
        #expect(minimised, "\(reader.pictures.last.map(String.init(describing:)) ?? "no picture")")
        #expect(reader.pictures.last?.windows.first { $0.appID == "XTermShown" }?.minimized == false)
        _ = shown
        try desktop.xdotool("windowactivate", "--sync", hidden.window)
        #expect(
            try reader.waitFor { picture in
                picture.windows.first { $0.appID == "XTermHidden" }.map { $0.focused && !$0.minimized } == true
            }
        )
    }

    @Test(
        "L15: once the last window closes, the picture shows no window after the active window stayed None",
        .enabled(if: canRun, "needs root, Xvfb, openbox, xterm, xdotool and xprop (.ci/install-deps --tests)")
    )
    func lastWindowCloses() throws {
        let desktop = try EWMHDesktop(uid: Self.person)
        let only = try desktop.openTerminal(class: "XTermOnly")

        let reader = DesktopPictureReader(try X11Source(display: desktop.display))
        try desktop.xdotool("windowactivate", "--sync", only.window)
        #expect(try reader.waitFor { $0.windows.first { $0.focused }?.appID == "XTermOnly" })
        only.process.kill9()
        #expect(try reader.waitFor { $0.windows.isEmpty })
    }

    @Test(
        "L15: a display with no EWMH window manager is said plainly, and the source leaves it cleanly",
        .enabled(if: canRun, "needs root, Xvfb, openbox, xterm, xdotool and xprop (.ci/install-deps --tests)")
    )
    func noWindowManager() throws {
        let desktop = try EWMHDesktop(uid: Self.person, windowManager: false)
        for _ in 0..<3 {
            #expect {
                try X11Source(display: desktop.display)
            } throws: { error in
                (error as? DesktopSourceFailure)?.description.contains("no EWMH window manager") == true
            }
        }
    }

    @Test("L15: a display nobody serves is said plainly")
    func noDisplay() {
        #expect(throws: DesktopSourceFailure.self) { try X11Source(display: ":4093") }
    }
}
