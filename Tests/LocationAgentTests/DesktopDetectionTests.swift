import LocationAgent
import Testing

/// N15: locd-agent finds the person's desktop from the session's ordinary environment.
@Suite("locd-agent finds the desktop")
struct DesktopDetectionTests {
    private func name(_ environment: [String: String]) -> String? {
        DesktopSources.detect(environment: environment)?.name
    }

    @Test("N15, L18: SWAYSOCK is sway, GNOME or KDE in XDG_CURRENT_DESKTOP, then WAYLAND_DISPLAY, then DISPLAY alone")
    func detection() {
        #expect(name(["SWAYSOCK": "/run/user/1000/sway-ipc.sock", "WAYLAND_DISPLAY": "wayland-1"]) == "sway")
        #expect(name(["XDG_CURRENT_DESKTOP": "ubuntu:GNOME", "WAYLAND_DISPLAY": "wayland-0"]) == "gnome-shell")
        #expect(name(["XDG_CURRENT_DESKTOP": "KDE", "WAYLAND_DISPLAY": "wayland-0"]) == "kwin")
        #expect(name(["XDG_CURRENT_DESKTOP": "KDE", "DISPLAY": ":0"]) == "kwin", "L18: KWin on X11 runs scripts too")
        #expect(name(["WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "phosh:GNOME-Mobile"]) == "wlroots")
        #expect(name(["WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "Phosh:GNOME"]) == "wlroots", "L17")
        #expect(name(["WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "labwc:wlroots"]) == "wlroots")
        #expect(name(["DISPLAY": ":0"]) == "x11")
        #expect(name(["TERM": "xterm", "SSH_CONNECTION": "10.0.0.1 22 10.0.0.2 22"]) == nil, "ssh: no desktop")
        #expect(name(["SWAYSOCK": "", "DISPLAY": ""]) == nil, "empty variables name nothing")
    }
}
