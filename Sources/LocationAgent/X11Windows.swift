/// What an EWMH desktop's X server said of its windows, put together into a ``DesktopPicture``: no I/O, so that the
/// rules of L15 are tested without a display. ``X11Source`` asks the server and feeds the answers in.
struct X11Windows: Equatable {
    /// One client window, as far as the server has answered for it.
    struct Window: Equatable {
        /// `WM_CLASS`'s class (its second string).
        var windowClass: String?
        /// The pid of the client that made the window, as the server knows it (X-Resource); never `_NET_WM_PID` (L15).
        var pid: Int32?
        /// `_NET_WM_STATE` holds `_NET_WM_STATE_HIDDEN`.
        var hidden = false
        /// `_NET_WM_DESKTOP`: the workspace the window is on; `nil` when it says none, `UInt32.max` on all of them.
        var desktop: UInt32?
    }

    /// The windows no picture holds more of: a bound on what one display costs the agent (RELIABILITY).
    static let maximumWindows = 1024

    /// `_NET_ACTIVE_WINDOW`; 0 (None) while no window is active.
    private(set) var active: UInt32 = 0
    /// `_NET_CURRENT_DESKTOP`, the workspace shown.
    var currentDesktop: UInt32?
    /// `_NET_CLIENT_LIST`, in the window manager's order: the windows of the picture.
    private(set) var order: [UInt32] = []
    private(set) var windows: [UInt32: Window] = [:]

    /// Takes the window manager's list of client windows, and returns the windows new to it, which the source then
    /// watches and asks about. Windows gone from it are forgotten.
    mutating func setClientList(_ list: [UInt32]) -> [UInt32] {
        var seen = Set<UInt32>()
        let newOrder = Array(list.filter { $0 != 0 && seen.insert($0).inserted }.prefix(Self.maximumWindows))
        let added = newOrder.filter { windows[$0] == nil }
        let kept = Set(newOrder)
        windows = windows.filter { kept.contains($0.key) }
        for window in added { windows[window] = Window() }
        order = newOrder
        return added
    }

    /// Takes `_NET_ACTIVE_WINDOW`. A window that is not in the client list is no window of the picture: one that was
    /// destroyed (Openbox leaves the property naming it), or one the list names in its next change.
    mutating func setActive(_ window: UInt32) {
        active = window
    }

    /// Changes what is known of `window`, if the picture holds it.
    mutating func update(_ window: UInt32, _ change: (inout Window) -> Void) {
        guard var known = windows[window] else { return }
        change(&known)
        windows[window] = known
    }

    /// A window the server says no longer exists.
    mutating func remove(_ window: UInt32) {
        windows[window] = nil
        order.removeAll { $0 == window }
    }

    /// Whether the display has no active window now: the moment between two windows that L15 waits out.
    var hasNoActiveWindow: Bool { active == 0 || windows[active] == nil }

    /// The picture: every client window, the active one focused; a window is minimised when it is hidden or on a
    /// workspace that is not shown (L15).
    var picture: DesktopPicture {
        DesktopPicture(
            windows: order.compactMap { id in
                guard let window = windows[id] else { return nil }
                let elsewhere =
                    window.desktop.map { desktop in
                        desktop != UInt32.max && currentDesktop.map { $0 != desktop } == true
                    } ?? false
                return DesktopWindow(
                    appID: window.windowClass,
                    pid: window.pid,
                    focused: id == active,
                    minimized: window.hidden || elsewhere
                )
            }
        )
    }
}
