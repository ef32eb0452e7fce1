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
        let reader = DesktopPictureReader(try WlrootsSource(displayName: path, phone: false))
        #expect {
            _ = try reader.waitFor { _ in false }
        } throws: { error in
            let text = (error as? DesktopSourceFailure)?.description ?? ""
            return text.contains("zwlr_foreign_toplevel_manager_v1") && text.contains(path)
        }
    }

    @Test("N15, L17: a compositor that never answers does not hold the source's start: nothing is waited for")
    func silentCompositorDoesNotBlock() throws {
        let directory = try TemporaryDirectory(prefix: "wayland")
        defer { directory.remove() }
        let path = directory.at("wayland-silent")
        // A socket that listens and never accepts: the connection is made, and nothing is ever answered.
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0 && listen(listener, 4) == 0)
        let started = ContinuousClock.now
        let reader = DesktopPictureReader(try WlrootsSource(displayName: path, phone: false))
        #expect(ContinuousClock.now - started < .seconds(1), "the source's start waited for the compositor")
        try reader.readOnce(milliseconds: 200)
        #expect(reader.pictures.isEmpty && reader.wakeUps == 0)
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

    /// A stand-in compositor that offers the manager and names `count` toplevels of an `app_id` `length` characters
    /// long, then, with `close`, hangs up; and the source reading it.
    private static func standIn(
        count: Int,
        length: Int,
        close: Bool
    ) throws -> (TemporaryDirectory, ScriptProcess, DesktopPictureReader) {
        let directory = try TemporaryDirectory(prefix: "wayland")
        let path = directory.at("wayland-9")
        let compositor = try ScriptProcess(
            ["/usr/bin/python3", "-c", toplevelCompositor, path, "\(count)", "\(length)", close ? "close" : "stay"],
            logPath: directory.at("compositor.log")
        )
        guard compositor.waitFor("ready") else { throw StandInFailure("no stand-in compositor: \(compositor.log)") }
        return (directory, compositor, DesktopPictureReader(try WlrootsSource(displayName: path, phone: false)))
    }

    @Test(
        "L17: a compositor naming more than 4,096 windows is refused as unreadable; an app_id is cut at 255 characters",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3")
    )
    func boundedToplevels() throws {
        let (directory, compositor, reader) = try Self.standIn(count: 3, length: 1000, close: false)
        defer {
            compositor.kill9()
            directory.remove()
        }
        #expect(try reader.waitFor { $0.windows.count == 3 }, "\(compositor.log)")
        #expect(reader.pictures.last?.windows.allSatisfy { $0.appID?.count == 255 } == true)
        let (floodDirectory, flood, floodReader) = try Self.standIn(count: 4097, length: 8, close: false)
        defer {
            flood.kill9()
            floodDirectory.remove()
        }
        #expect {
            _ = try floodReader.waitFor { _ in false }
        } throws: { error in
            (error as? DesktopSourceFailure)?.description.contains("more than 4096 windows") == true
        }
    }

    @Test(
        "L17, N15: a compositor that hangs up ends the source, saying the session ended",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3")
    )
    func compositorHangsUp() throws {
        let (directory, compositor, reader) = try Self.standIn(count: 1, length: 8, close: true)
        defer {
            compositor.kill9()
            directory.remove()
        }
        #expect {
            _ = try reader.waitFor { _ in false }
        } throws: { error in
            (error as? DesktopSourceFailure)?.description.contains("closed the connection") == true
        }
        #expect(reader.pictures.last?.windows.map(\.appID) == ["aaaaaaaa"], "what came before the end was read")
    }

    /// A Wayland compositor that offers `zwlr_foreign_toplevel_manager_v1` and, once bound, names argv[2] activated
    /// toplevels whose `app_id` is argv[3] letters, before answering the sync that follows; argv[4] `close` hangs up.
    private static let toplevelCompositor = """
        import socket, struct, sys
        path, count, length, close = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "close"
        def msg(obj, op, payload=b""): return struct.pack("=II", obj, ((8 + len(payload)) << 16) | op) + payload
        def pad(b): return b + b"\\0" * (-len(b) % 4)
        def string(text): b = text.encode() + b"\\0"; return struct.pack("=I", len(b)) + pad(b)
        s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(1); print("ready", flush=True)
        c, _ = s.accept(); buf = b""; registry = manager = None; sent = False
        while True:
            data = c.recv(65536)
            if not data: break
            buf += data
            while len(buf) >= 8:
                obj, word = struct.unpack("=II", buf[:8]); size, op = word >> 16, word & 0xffff
                if size < 8 or len(buf) < size: break
                m, buf = buf[:size], buf[size:]
                if obj == 1 and op == 1:
                    (registry,) = struct.unpack("=I", m[8:12])
                    c.sendall(msg(registry, 0, struct.pack("=I", 1) + string("zwlr_foreign_toplevel_manager_v1") + struct.pack("=I", 3)))
                elif obj == registry and op == 0:
                    (n,) = struct.unpack("=I", m[12:16]); off = 16 + n + (-n % 4)
                    manager = struct.unpack("=I", m[off + 4:off + 8])[0]
                elif obj == 1 and op == 0:
                    (new,) = struct.unpack("=I", m[8:12])
                    if manager is not None and not sent:
                        sent = True
                        for i in range(count):
                            h = 0xff000000 + i
                            c.sendall(msg(manager, 0, struct.pack("=I", h)) + msg(h, 1, string("a" * length))
                                + msg(h, 4, struct.pack("=II", 4, 2)) + msg(h, 5))
                    c.sendall(msg(new, 0, struct.pack("=I", 0)) + msg(1, 1, struct.pack("=I", new)))
                    if sent and close: c.close(); sys.exit(0)
        """
}
