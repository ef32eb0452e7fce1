/// Which desktop the session's environment names, and how locd-agent reads it (N15).
package enum DesktopSources {
    /// A desktop found in the environment: its name as the log and `locctl status` show it, and how to open it.
    package struct Found {
        package var name: String
        package var open: () throws(DesktopSourceFailure) -> any DesktopSource
    }

    /// The desktop the environment names, checked in order: `SWAYSOCK` (sway), `XDG_CURRENT_DESKTOP` naming GNOME
    /// (GNOME Shell, but not Phosh's `Phosh:GNOME`) or KDE (KWin, L18), `WAYLAND_DISPLAY` (any other compositor read
    /// as wlroots: its foreign-toplevel protocol, L17), `DISPLAY` alone (the X Window System);
    /// `nil` where none is (a terminal, ssh): then apps keep their own word (L11).
    package static func detect(environment: [String: String]) -> Found? {
        let current = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map { $0.lowercased() }
        if let socket = environment["SWAYSOCK"], !socket.isEmpty {
            return Found(name: "sway") { () throws(DesktopSourceFailure) -> any DesktopSource in
                try SwaySource(socketPath: socket)
            }
        }
        let phone = current.contains("phosh")
        if current.contains("gnome"), !phone {
            let address = environment["DBUS_SESSION_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
            return Found(name: "gnome-shell") { () throws(DesktopSourceFailure) -> any DesktopSource in
                try GnomeShellSource(address: address)
            }
        }
        if current.contains("kde") {
            let address = environment["DBUS_SESSION_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
            let script = KWinSource.scriptPath(environment: environment)
            return Found(name: "kwin") { () throws(DesktopSourceFailure) -> any DesktopSource in
                try KWinSource(address: address, scriptPath: script)
            }
        }
        if let display = environment["WAYLAND_DISPLAY"], !display.isEmpty {
            return Found(name: "wlroots") { () throws(DesktopSourceFailure) -> any DesktopSource in
                try WlrootsSource(displayName: display, phone: phone)
            }
        }
        if let display = environment["DISPLAY"], !display.isEmpty {
            return Found(name: "x11") { () throws(DesktopSourceFailure) -> any DesktopSource in
                try X11Source(display: display)
            }
        }
        return nil
    }
}
