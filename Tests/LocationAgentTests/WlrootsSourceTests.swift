import Foundation
import LocationTestSupport
import Testing

@testable import LocationAgent

#if canImport(Glibc)
import Glibc
#endif

/// The wlroots desktop source against a real compositor that offers `zwlr_foreign_toplevel_manager_v1`: sway, headless,
/// of an ordinary user, read through its Wayland display alone (never its IPC socket), with real `foot` windows; and
/// against a stand-in compositor that offers no global at all.
@Suite("The wlroots desktop source", .serialized)
struct WlrootsSourceTests {
    private static let canRun = SwaySession.isAvailable && getuid() == 0
    private static let person: UInt32 = 61_051

    private static func source(_ sway: SwaySession, phone: Bool = false) throws -> DesktopPictureReader {
        DesktopPictureReader(try WlrootsSource(displayName: sway.runtime + "/" + sway.display, phone: phone))
    }

    @Test(
        "L17: the picture follows the activated toplevel, named by its app_id, with no process",
        .enabled(if: canRun, "needs root, sway and foot (.ci/install-deps --tests)")
    )
    func followsTheActivatedToplevel() throws {
        let sway = try SwaySession(uid: Self.person)
        try sway.openWindow(appID: "org.example.First")
        let reader = try Self.source(sway)
        #expect(reader.source.name == "wlroots")
        // The first picture comes with the toplevels the compositor had when the source bound its manager.
        #expect(try reader.waitFor { $0.windows.map(\.appID) == ["org.example.First"] }, "\(reader.pictures)")
        try sway.openWindow(appID: "org.example.Second")
        for appID in ["org.example.Second", "org.example.First", "org.example.Second"] {
            try sway.focus(appID)
            let followed = try reader.waitFor {
                $0.windows.count == 2 && $0.windows.first { $0.focused }?.appID == appID
            }
            #expect(followed, "\(reader.pictures.last.map(String.init(describing:)) ?? "no picture")")
            #expect(reader.pictures.last?.windows.filter(\.focused).count == 1)
        }
        #expect(reader.pictures.allSatisfy { $0.windows.allSatisfy { $0.pid == nil } }, "the protocol names no pid")
        // An idle compositor wakes nobody: half a second of the descriptor's silence.
        let wakeUps = reader.wakeUps
        try reader.readOnce(milliseconds: 500)
        #expect(reader.wakeUps == wakeUps)
    }

    @Test(
        "L17: on Phosh only the activated toplevel is on screen; a closed window leaves the picture",
        .enabled(if: canRun, "needs root, sway and foot (.ci/install-deps --tests)")
    )
    func phoneShowsTheActivatedToplevelAlone() throws {
        let sway = try SwaySession(uid: Self.person)
        try sway.openWindow(appID: "org.example.Maps")
        let notes = try sway.openWindow(appID: "org.example.Notes")
        try sway.focus("org.example.Maps")
        let reader = try Self.source(sway, phone: true)
        let shown = try reader.waitFor { picture in
            picture.windows.count == 2
                && picture.windows.filter { !$0.minimized }.map(\.appID) == ["org.example.Maps"]
        }
        #expect(shown, "\(reader.pictures)")
        #expect(reader.focused?.appID == "org.example.Maps")
        notes.kill9()
        #expect(try reader.waitFor { $0.windows.map(\.appID) == ["org.example.Maps"] }, "\(reader.pictures)")
    }

    @Test(
        "L17, N15: a compositor without zwlr_foreign_toplevel_manager_v1 is refused, naming the protocol",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3")
    )
    func compositorWithoutTheProtocol() throws {
        let directory = try TemporaryDirectory(prefix: "wayland")
        defer { directory.remove() }
        let path = directory.at("wayland-9")
        let compositor = try ScriptProcess(
            ["/usr/bin/python3", "-c", Self.globallessCompositor, path],
            logPath: directory.at("compositor.log")
        )
        defer { compositor.kill9() }
        #expect(compositor.waitFor("ready"), "\(compositor.log)")
        #expect {
            try WlrootsSource(displayName: path, phone: false)
        } throws: { error in
            let text = (error as? DesktopSourceFailure)?.description ?? ""
            return text.contains("zwlr_foreign_toplevel_manager_v1") && text.contains(path)
        }
    }

    @Test(
        "L17: the protocol's checked-in C glue is what wayland-scanner makes of the checked-in XML",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/wayland-scanner"),
            "needs wayland-scanner (libwayland-bin)"
        )
    )
    func generatedGlueIsCurrent() throws {
        let directory = try TemporaryDirectory(prefix: "scanner")
        defer { directory.remove() }
        let target = Repository.root() + "/Sources/CWlrForeignToplevel"
        let run = try ChildProcess(["/bin/sh", target + "/generate.sh", directory.path])
        #expect(run.status == 0, "\(run.output)")
        for file in [
            "include/wlr-foreign-toplevel-management-unstable-v1-client-protocol.h",
            "wlr-foreign-toplevel-management-unstable-v1-protocol.c",
        ] {
            let made = try String(contentsOfFile: directory.at(file), encoding: .utf8)
            let kept = try String(contentsOfFile: target + "/" + file, encoding: .utf8)
            #expect(made == kept, "\(file) differs from wayland-scanner's output: run \(target)/generate.sh")
        }
    }

    /// A Wayland compositor with no globals: it answers each `wl_display.sync` (and so a round trip) and nothing else.
    private static let globallessCompositor = """
        import socket, struct, sys
        s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); print("ready", flush=True)
        c, _ = s.accept(); buf = b""
        while True:
            data = c.recv(4096)
            if not data: break
            buf += data
            while len(buf) >= 8:
                obj, word = struct.unpack("=II", buf[:8]); size = word >> 16
                if size < 8 or len(buf) < size: break
                msg, buf = buf[:size], buf[size:]
                if obj == 1 and word & 0xffff == 0:
                    (new,) = struct.unpack("=I", msg[8:12])
                    c.sendall(struct.pack("=III", new, 12 << 16, 0) + struct.pack("=III", 1, (12 << 16) | 1, new))
        """
}
