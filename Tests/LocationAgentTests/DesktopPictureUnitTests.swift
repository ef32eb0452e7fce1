import Testing

@testable import LocationAgent

/// The pure halves of the X11 and GNOME Shell sources: what the server's answers and the extension's JSON make.
@Suite("Desktop pictures from the desktops' answers")
struct DesktopPictureUnitTests {
    @Test("L15: the client list is the windows, in order, each once, at most maximumWindows")
    func clientList() {
        var windows = X11Windows()
        #expect(windows.setClientList([7, 3, 7, 0, 5]) == [7, 3, 5])
        #expect(windows.setClientList([3, 9]) == [9], "only the new window is asked about")
        #expect(windows.order == [3, 9] && windows.windows.keys.sorted() == [3, 9], "7 and 5 are forgotten")
        let many = windows.setClientList(Array(1...UInt32(X11Windows.maximumWindows + 10)))
        #expect(windows.order.count == X11Windows.maximumWindows && many.count == X11Windows.maximumWindows - 2)
    }

    @Test("L15: the active window is focused only while the client list holds it; hidden or elsewhere is minimised")
    func picture() {
        var windows = X11Windows()
        _ = windows.setClientList([1, 2, 3])
        windows.currentDesktop = 0
        windows.update(1) { $0 = .init(windowClass: "com.ex.maps", pid: 41, hidden: false, desktop: 0) }
        windows.update(2) { $0 = .init(windowClass: "org.example.Notes", pid: 42, hidden: true, desktop: 0) }
        windows.update(3) { $0 = .init(windowClass: "org.example.Other", pid: nil, hidden: false, desktop: 1) }
        windows.setActive(1)
        #expect(
            windows.picture.windows == [
                DesktopWindow(appID: "com.ex.maps", pid: 41, focused: true, minimized: false),
                DesktopWindow(appID: "org.example.Notes", pid: 42, focused: false, minimized: true),
                DesktopWindow(appID: "org.example.Other", pid: nil, focused: false, minimized: true),
            ]
        )
        windows.update(3) { $0.desktop = UInt32.max }
        #expect(windows.picture.windows[2].minimized == false, "a window on every workspace is shown")
        windows.setActive(99)
        #expect(windows.hasNoActiveWindow && !windows.picture.windows.contains(where: \.focused))
        windows.remove(1)
        #expect(windows.order == [2, 3])
    }

    @Test("L16: a window's name is its sandbox's app id, else its GTK id, else its desktop id, else its WM_CLASS")
    func gnomeNames() {
        let text = """
            {"locked":true,"windows":[
            {"pid":10,"gtkApplicationId":"org.gnome.Maps","sandboxedAppId":"org.gnome.Maps.Flatpak",
             "desktopId":"maps.desktop","wmClass":"maps","focused":true,"minimized":false},
            {"pid":11,"gtkApplicationId":null,"sandboxedAppId":null,"desktopId":"org.example.Notes.desktop",
             "wmClass":"notes","focused":false,"minimized":true},
            {"pid":0,"gtkApplicationId":"","sandboxedAppId":null,"desktopId":null,"wmClass":"xterm",
             "focused":false,"minimized":false}]}
            """
        #expect(
            GnomeShellSource.picture(text)
                == DesktopPicture(
                    locked: true,
                    windows: [
                        DesktopWindow(appID: "org.gnome.Maps.Flatpak", pid: 10, focused: true, minimized: false),
                        DesktopWindow(appID: "org.example.Notes", pid: 11, focused: false, minimized: true),
                        DesktopWindow(appID: "xterm", pid: nil, focused: false, minimized: false),
                    ]
                )
        )
    }

    @Test("L16: what is not the extension's picture is refused, and so is one beyond the bound")
    func gnomeRefusals() {
        #expect(GnomeShellSource.picture("") == nil)
        #expect(GnomeShellSource.picture(#"{"windows":[]}"#) == nil, "no locked")
        #expect(GnomeShellSource.picture(#"{"locked":false,"windows":{}}"#) == nil)
        let long =
            String(repeating: " ", count: GnomeShellSource.maximumPictureBytes) + #"{"locked":false,"windows":[]}"#
        #expect(GnomeShellSource.picture(long) == nil)
        #expect(GnomeShellSource.picture(#"{"locked":false,"windows":[]}"#) == DesktopPicture(windows: []))
    }
}
