import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real phoc (Phosh's compositor), headless, run as an ordinary user with a runtime directory of its own, and real
/// `foot` windows in it: the phone whose activated toplevel locd-agent reads (L17). Every window is maximised, as on a
/// phone, so the activated one is the one on screen.
///
/// phoc activates nothing on request until its seat has had an input device: the session creates a virtual pointer
/// once (wlroots' `virtual-pointer` example). (With Xwayland turned off, phoc 0.24 offers no `wl_seat` at all, and
/// `foot` will not start: its default, Xwayland started when a client needs it, is kept.) Windows are
/// listed and activated through wlroots' `foreign-toplevel` example, a client of the same protocol locd-agent reads.
package final class PhocSession {
    /// Whether this machine has phoc, foot and wlroots' examples (`.ci/install-deps --tests`).
    package static let isAvailable = ["/usr/bin/phoc", "/usr/bin/foot", virtualPointer, foreignToplevel]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    private static let virtualPointer = "/usr/lib/wlroots/virtual-pointer"
    private static let foreignToplevel = "/usr/lib/wlroots/foreign-toplevel"

    package let launcher: SessionLauncher
    /// phoc's Wayland display (`WAYLAND_DISPLAY`), in ``SessionLauncher/runtime``.
    package private(set) var display = ""

    /// Starts phoc as `uid`, waits for its display and gives it its seat.
    package init(uid: UInt32) throws {
        launcher = try SessionLauncher(uid: uid, prefix: "phoc")
        let config = try launcher.directory.write("phoc.ini", "[output:HEADLESS-1]\nmode = 720x1440\n")
        chmod(config, 0o644)
        let phoc = try launcher.start(
            ["/usr/bin/phoc", "-C", config],
            log: "phoc.log",
            environment: ["GSETTINGS_BACKEND": "memory"]
        )
        display = try launcher.waitForDisplay(of: phoc, named: "phoc")
        let pointer = try launcher.run([Self.virtualPointer, "motion", "1", "1"], environment: environment)
        guard pointer.status == 0 else { throw StandInFailure("no virtual pointer in phoc: \(pointer.output)") }
    }

    /// What phoc said.
    package var log: String { (try? String(contentsOfFile: launcher.directory.at("phoc.log"), encoding: .utf8)) ?? "" }

    /// The session's environment as a program in it sees it.
    package var environment: [String: String] {
        [
            "XDG_RUNTIME_DIR": launcher.runtime, "WAYLAND_DISPLAY": display, "XDG_CURRENT_DESKTOP": "Phosh:GNOME",
            "HOME": launcher.directory.path,
        ]
    }

    /// Starts `arguments` as the session's user with exactly the session's environment (and `PATH`).
    @discardableResult
    package func start(_ arguments: [String], log: String) throws -> ScriptProcess {
        try launcher.start(arguments, log: log, environment: environment)
    }

    /// Opens a `foot` window whose Wayland `app_id` is `appID`, running `command` (`cat` if none), and waits until
    /// phoc lists it as the activated window: phoc activates a new window once it is mapped, which could otherwise
    /// come after, and undo, a ``focus(_:)`` of another.
    @discardableResult
    package func openWindow(appID: String, running command: [String] = ["/bin/cat"]) throws -> ScriptProcess {
        let window = try start(["/usr/bin/foot", "--app-id=\(appID)", "--"] + command, log: "foot-\(appID).log")
        guard eventually(timeout: 20, every: 0.02, { windows().contains { $0.appID == appID && $0.activated } }) else {
            throw StandInFailure("foot \(appID) did not map a window: \(window.log)")
        }
        return window
    }

    /// Activates the window of `appID`, as Phosh's overview does when a person picks it, and waits until phoc says so.
    /// Under load phoc was seen to drop one activation in about five runs and keep the window it had: the request is
    /// made again, up to five times, each after 2 s without the change, as a person taps again.
    package func focus(_ appID: String) throws {
        var said = ""
        for _ in 0..<5 {
            guard let index = windows().firstIndex(where: { $0.appID == appID }) else {
                throw StandInFailure("phoc has no window of \(appID)")
            }
            // The example numbers the toplevels in the order phoc announces them, the same in every run.
            let run = try launcher.run([Self.foreignToplevel, "-f", String(index)], environment: environment)
            guard run.status == 0 else { throw StandInFailure("foreign-toplevel -f failed: \(run.output)") }
            if eventually(timeout: 2, every: 0.02, { windows().first { $0.activated }?.appID == appID }) { return }
            said += "-f \(index): \(run.output)"
        }
        throw StandInFailure("phoc did not activate \(appID): \(windows()); \(said)\n\(log)")
    }

    /// The toplevels phoc announces, in its order: app id and whether it is the activated one.
    package func windows() -> [(appID: String, activated: Bool)] {
        guard let run = try? launcher.run([Self.foreignToplevel], environment: environment) else { return [] }
        // "-> 0. title=foot app_id=org.example.Maps no parent maximized unminimized active"
        return run.output.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard line.hasPrefix("-> "), let appID = words.first(where: { $0.hasPrefix("app_id=") }) else {
                return nil
            }
            return (String(appID.dropFirst("app_id=".count)), words.last == "active")
        }
    }
}
