/// One window as the desktop describes it, in the desktop's own terms.
package struct DesktopWindow: Sendable, Equatable {
    /// What the desktop names the window's app: a Wayland `app_id`, an X `WM_CLASS` class, a GTK application id or
    /// a desktop id (without `.desktop`); `nil` when it names none.
    package var appID: String?
    /// The window's process, where the desktop knows it.
    package var pid: Int32?
    /// Whether the window has the focus.
    package var focused: Bool
    /// Whether the window is minimised (hidden).
    package var minimized: Bool

    package init(appID: String?, pid: Int32?, focused: Bool, minimized: Bool = false) {
        self.appID = appID
        self.pid = pid
        self.focused = focused
        self.minimized = minimized
    }
}

/// What a desktop says of its windows at one moment: the whole picture, not a change.
package struct DesktopPicture: Sendable, Equatable {
    /// Whether the session is locked or its screen blank, where the desktop says so.
    package var locked: Bool
    package var windows: [DesktopWindow]

    package init(locked: Bool = false, windows: [DesktopWindow]) {
        self.locked = locked
        self.windows = windows
    }
}

/// A desktop that locd-agent reads without waiting: the shell polls ``descriptor`` with its other sockets and calls
/// ``readable()`` when it is ready.
package protocol DesktopSource: AnyObject {
    /// The desktop's name as the log and `locctl status` show it: `sway`, `wlroots`, `gnome-shell`, `kwin`, `x11`.
    var name: String { get }
    /// The descriptor to poll for reading.
    var descriptor: Int32 { get }
    /// Reads what is waiting without blocking, and returns the desktop's newest picture if it changed.
    /// - Throws: ``DesktopSourceFailure`` when the desktop went away or said something that cannot be read.
    func readable() throws(DesktopSourceFailure) -> DesktopPicture?
}

/// Why a desktop cannot be read (any more), said once in the log and in `locctl status`.
package struct DesktopSourceFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
