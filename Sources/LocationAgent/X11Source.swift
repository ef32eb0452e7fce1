import CXcb

#if canImport(Glibc)
import Glibc
#endif

/// An X display with an EWMH window manager (Xfce, MATE, Cinnamon, Openbox, any other), read through libxcb without
/// waiting: `_NET_ACTIVE_WINDOW`, `_NET_CLIENT_LIST` and `_NET_CURRENT_DESKTOP` on the root window, each client
/// window's `WM_CLASS`, `_NET_WM_STATE` and `_NET_WM_DESKTOP`, and the pid of the client that made the window as the
/// server knows it (X-Resource), which is the pid that counts (L15).
///
/// Every question is sent without waiting for its answer; the answers come back on the connection, in order, and
/// ``readable()`` reads those that are there. A picture is given only once every question asked is answered, so that
/// no picture mixes two moments. The active window passes through None between two windows: a picture with no active
/// window after one with a focused window waits ``settleTime`` on a timer armed only then (L15), so an idle desktop
/// costs no wake-up. ``descriptor`` is an epoll descriptor holding the connection's and the timer's.
package final class X11Source: DesktopSource {
    /// What the window manager must have said for a while before the agent believes that no window is active.
    static let settleTime = 200  // milliseconds

    /// A question asked of the server, waiting for its answer.
    private enum Query {
        case active, clientList, currentDesktop
        case windowClass(UInt32)
        case state(UInt32)
        case desktop(UInt32)
        case pid(UInt32)
    }

    /// The atoms the source names, interned once at the start.
    private struct Atoms {
        var supported: xcb_atom_t = 0
        var active: xcb_atom_t = 0
        var clientList: xcb_atom_t = 0
        var currentDesktop: xcb_atom_t = 0
        var state: xcb_atom_t = 0
        var hidden: xcb_atom_t = 0
        var windowDesktop: xcb_atom_t = 0
    }

    package let name = "x11"
    package let descriptor: Int32
    private let connection: OpaquePointer
    private let root: xcb_window_t
    private let atoms: Atoms
    private let timer: Int32
    /// Whether the server has X-Resource 1.2, which says which pid a client has; without it no window has a pid.
    private let hasResource: Bool
    private var windows = X11Windows()
    /// The questions asked and not yet answered, in the order asked (the server answers in that order).
    private var pending: [(sequence: UInt32, query: Query)] = []
    private var reported: DesktopPicture?
    private var settling = false

    /// Connects to `display` (`DISPLAY` when `nil`) and asks for the first picture.
    /// - Throws: ``DesktopSourceFailure`` when the display cannot be reached or no EWMH window manager runs on it.
    package init(display: String? = nil) throws(DesktopSourceFailure) {
        var screen: Int32 = 0
        let named = display ?? getenv("DISPLAY").map { String(cString: $0) } ?? ""
        guard let connection = xcb_connect(display, &screen), xcb_connection_has_error(connection) == 0 else {
            throw DesktopSourceFailure("cannot connect to the X display \(named)")
        }
        self.connection = connection
        var roots = xcb_setup_roots_iterator(xcb_get_setup(connection))
        for _ in 0..<max(0, screen) { xcb_screen_next(&roots) }
        guard let data = roots.data else {
            xcb_disconnect(connection)
            throw DesktopSourceFailure("the X display \(named) has no screen \(screen)")
        }
        root = data.pointee.root
        var atoms = Atoms()
        let names = [
            "_NET_SUPPORTED", "_NET_ACTIVE_WINDOW", "_NET_CLIENT_LIST", "_NET_CURRENT_DESKTOP", "_NET_WM_STATE",
            "_NET_WM_STATE_HIDDEN", "_NET_WM_DESKTOP",
        ]
        let interned = Self.intern(connection, names)
        guard interned.count == names.count else {
            xcb_disconnect(connection)
            throw DesktopSourceFailure("the X display \(named) did not answer")
        }
        (atoms.supported, atoms.active, atoms.clientList, atoms.currentDesktop) =
            (interned[0], interned[1], interned[2], interned[3])
        (atoms.state, atoms.hidden, atoms.windowDesktop) = (interned[4], interned[5], interned[6])
        self.atoms = atoms
        // Checked before the last stored property is set: a throw after it would run deinit, which disconnects too.
        guard Self.supports(connection, root, atoms.supported, atoms.active) else {
            xcb_disconnect(connection)
            throw DesktopSourceFailure(
                "the X display \(named) has no EWMH window manager that names the active window (_NET_ACTIVE_WINDOW)"
            )
        }
        hasResource = Self.hasResourcePids(connection)
        timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        for fd in [xcb_get_file_descriptor(connection), timer] {
            var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: fd))
            epoll_ctl(descriptor, EPOLL_CTL_ADD, fd, &event)
        }
        watch(root)
        for query in [Query.clientList, .currentDesktop, .active] { ask(query) }
        xcb_flush(connection)
    }

    deinit {
        xcb_disconnect(connection)
        close(timer)
        close(descriptor)
    }

    package func readable() throws(DesktopSourceFailure) -> DesktopPicture? {
        var expirations: UInt64 = 0
        let settled = read(timer, &expirations, MemoryLayout<UInt64>.size) == MemoryLayout<UInt64>.size
        try pump()
        guard pending.isEmpty else { return nil }
        let picture = windows.picture
        let hadFocus = reported?.windows.contains { $0.focused } ?? false
        if windows.hasNoActiveWindow, hadFocus, !settled {
            if !settling { arm(milliseconds: Self.settleTime) }
            settling = true
            return nil
        }
        if settling { arm(milliseconds: 0) }
        settling = false
        guard picture != reported else { return nil }
        reported = picture
        return picture
    }

    /// Reads every event and answer waiting, and sends the questions they raise, until nothing more is there.
    private func pump() throws(DesktopSourceFailure) {
        var progressed = true
        while progressed {
            progressed = false
            while let event = xcb_poll_for_event(connection) {
                progressed = true
                handle(UnsafeRawPointer(event))
                free(event)
            }
            while let first = pending.first {
                var reply: UnsafeMutableRawPointer?
                var error: UnsafeMutablePointer<xcb_generic_error_t>?
                guard xcb_poll_for_reply(connection, first.sequence, &reply, &error) != 0 else { break }
                progressed = true
                pending.removeFirst()
                if let reply {
                    answered(first.query, reply)
                    free(reply)
                } else {
                    failed(first.query)
                    free(error)
                }
            }
            // Reading an answer may have read events too, which the descriptor will not announce again.
            if let event = xcb_poll_for_queued_event(connection) {
                progressed = true
                handle(UnsafeRawPointer(event))
                free(event)
            }
            xcb_flush(connection)
        }
        guard xcb_connection_has_error(connection) == 0 else {
            throw DesktopSourceFailure("the X display closed the connection")
        }
    }

    /// A property changed: asks for its new value, if it is one the picture holds.
    private func handle(_ event: UnsafeRawPointer) {
        guard event.load(as: UInt8.self) & 0x7f == XCB_PROPERTY_NOTIFY else { return }
        let notify = event.load(as: xcb_property_notify_event_t.self)
        let window = notify.window
        if window == root {
            switch notify.atom {
            case atoms.active: ask(.active)
            case atoms.clientList: ask(.clientList)
            case atoms.currentDesktop: ask(.currentDesktop)
            default: break
            }
        } else if windows.windows[window] != nil {
            switch notify.atom {
            case XCB_ATOM_WM_CLASS.rawValue: ask(.windowClass(window))
            case atoms.state: ask(.state(window))
            case atoms.windowDesktop: ask(.desktop(window))
            default: break
            }
        }
    }

    private func answered(_ query: Query, _ reply: UnsafeMutableRawPointer) {
        switch query {
        case .active:
            windows.setActive(Self.cardinals(reply).first ?? 0)
        case .clientList:
            for added in windows.setClientList(Self.cardinals(reply)) { watchClient(added) }
        case .currentDesktop:
            windows.currentDesktop = Self.cardinals(reply).first
        case .windowClass(let window):
            let strings = Self.bytes(reply).split(separator: 0, omittingEmptySubsequences: false)
            let windowClass = strings.count > 1 ? String(decoding: strings[1], as: UTF8.self) : nil
            windows.update(window) { $0.windowClass = windowClass?.isEmpty == false ? windowClass : nil }
        case .state(let window):
            let hidden = Self.cardinals(reply).contains(atoms.hidden)
            windows.update(window) { $0.hidden = hidden }
        case .desktop(let window):
            let desktop = Self.cardinals(reply).first
            windows.update(window) { $0.desktop = desktop }
        case .pid(let window):
            let pid = Self.localPid(reply)
            windows.update(window) { $0.pid = pid }
        }
    }

    /// The server answered with an error: a window's is that it no longer exists.
    private func failed(_ query: Query) {
        switch query {
        case .active, .clientList, .currentDesktop: break
        case .windowClass(let window), .state(let window), .desktop(let window), .pid(let window):
            windows.remove(window)
        }
    }

    /// Sends the question; its answer is read by a later ``pump()``.
    private func ask(_ query: Query) {
        let sequence: UInt32
        switch query {
        case .active: sequence = property(root, atoms.active, XCB_ATOM_WINDOW.rawValue, words: 1)
        case .clientList:
            sequence = property(root, atoms.clientList, XCB_ATOM_WINDOW.rawValue, words: X11Windows.maximumWindows)
        case .currentDesktop: sequence = property(root, atoms.currentDesktop, XCB_ATOM_CARDINAL.rawValue, words: 1)
        case .windowClass(let window):
            sequence = property(window, XCB_ATOM_WM_CLASS.rawValue, XCB_ATOM_STRING.rawValue, words: 128)
        case .state(let window): sequence = property(window, atoms.state, XCB_ATOM_ATOM.rawValue, words: 64)
        case .desktop(let window):
            sequence = property(window, atoms.windowDesktop, XCB_ATOM_CARDINAL.rawValue, words: 1)
        case .pid(let window):
            var spec = xcb_res_client_id_spec_t(
                client: window,
                mask: XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue
            )
            sequence = xcb_res_query_client_ids(connection, 1, &spec).sequence
        }
        pending.append((sequence, query))
    }

    private func property(_ window: UInt32, _ atom: xcb_atom_t, _ type: xcb_atom_t, words: Int) -> UInt32 {
        xcb_get_property(connection, 0, window, atom, type, 0, UInt32(words)).sequence
    }

    /// Asks to hear of `window`'s property changes.
    private func watch(_ window: UInt32) {
        var mask = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
        xcb_change_window_attributes(connection, window, XCB_CW_EVENT_MASK.rawValue, &mask)
    }

    /// Watches a client window new to the picture, then asks what it is: after the watch, so no change is missed.
    private func watchClient(_ window: UInt32) {
        watch(window)
        for query in [Query.windowClass(window), .state(window), .desktop(window)] { ask(query) }
        if hasResource { ask(.pid(window)) }
    }

    /// Arms the settling timer to fire once in `milliseconds`; 0 disarms it.
    private func arm(milliseconds: Int) {
        var spec = itimerspec()
        spec.it_value.tv_sec = milliseconds / 1000
        spec.it_value.tv_nsec = (milliseconds % 1000) * 1_000_000
        timerfd_settime(timer, 0, &spec, nil)
    }
}
