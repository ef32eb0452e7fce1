import CWaylandClient
import CWlrForeignToplevel

#if canImport(Glibc)
import Glibc
#endif

/// A wlroots compositor (phoc, labwc, Hyprland, Wayfire, sway) read as a Wayland client through its
/// `zwlr_foreign_toplevel_manager_v1` (L17): each toplevel's `app_id` and its activated and minimised states, no pid.
/// The display's socket is polled by the agent; ``readable()`` reads what is there and never waits.
final class WlrootsSource: DesktopSource {
    let name = "wlroots"
    let descriptor: Int32
    private let display: OpaquePointer
    private let displayName: String
    private let toplevels: WlrootsToplevels
    private let listeners: WlrootsListeners

    /// The highest version of the protocol this source speaks.
    private static let version: UInt32 = 3

    /// Connects to the compositor at `displayName` (`WAYLAND_DISPLAY`) and asks for its globals, without waiting:
    /// ``readable()`` binds the foreign-toplevel manager once they came. `phone` (Phosh): only the activated
    /// toplevel is on screen.
    init(displayName: String, phone: Bool) throws(DesktopSourceFailure) {
        guard let display = wl_display_connect(displayName) else {
            throw DesktopSourceFailure(
                "cannot connect to the Wayland compositor at WAYLAND_DISPLAY \(displayName): "
                    + String(cString: strerror(errno))
            )
        }
        // Every property is set from here on, so a throw below runs deinit, which disconnects.
        self.display = display
        self.displayName = displayName
        descriptor = wl_display_get_fd(display)
        toplevels = WlrootsToplevels(phone: phone)
        listeners = WlrootsListeners()
        toplevels.listeners = listeners
        guard let registry = wl_display_get_registry(display) else {
            throw DesktopSourceFailure("the Wayland compositor at \(displayName) gave no registry")
        }
        toplevels.registry = registry
        wl_registry_add_listener(registry, listeners.registry, Unmanaged.passUnretained(toplevels).toOpaque())
        // The compositor names its globals, then answers this.
        sync()
        if wl_display_flush(display) < 0 && errno != EAGAIN { throw broken() }
    }

    /// Asks the compositor to answer once it has sent all before: the globals, then the toplevels it had.
    private func sync() {
        let callback = wl_display_sync(display)
        wl_callback_add_listener(callback, listeners.sync, Unmanaged.passUnretained(toplevels).toOpaque())
    }

    /// The globals came: binds the manager, or says that the compositor has none.
    private func bindManager() throws(DesktopSourceFailure) {
        guard let global = toplevels.managerGlobal, let registry = toplevels.registry else {
            throw DesktopSourceFailure(
                "the Wayland compositor at \(displayName) does not offer zwlr_foreign_toplevel_manager_v1 "
                    + "(wlr foreign-toplevel management), the protocol that says which window is active"
            )
        }
        let manager = locd_bind_toplevel_manager(registry, global.name, min(global.version, Self.version))
        toplevels.manager = manager
        zwlr_foreign_toplevel_manager_v1_add_listener(
            manager,
            listeners.manager,
            Unmanaged.passUnretained(toplevels).toOpaque()
        )
        // The compositor sends the toplevels it has, then answers this: the first picture, even of no window.
        sync()
    }

    deinit {
        toplevels.destroyAll()
        wl_display_disconnect(display)
    }

    /// Reads the events waiting, dispatches them, and returns the picture if a toplevel's `done` changed it.
    func readable() throws(DesktopSourceFailure) -> DesktopPicture? {
        while wl_display_prepare_read(display) != 0 {
            guard wl_display_dispatch_pending(display) >= 0 else { throw broken() }
        }
        // The socket is ready (the agent polled it): libwayland reads it with MSG_DONTWAIT.
        guard wl_display_read_events(display) >= 0 else { throw broken() }
        guard wl_display_dispatch_pending(display) >= 0 else { throw broken() }
        if toplevels.syncs >= 1 && toplevels.manager == nil && toplevels.failure == nil { try bindManager() }
        if wl_display_flush(display) < 0 && errno != EAGAIN { throw broken() }
        if let failure = toplevels.failure { throw failure }
        return toplevels.takePicture()
    }

    /// Why the connection cannot be read any more: the compositor closed it, or a protocol error.
    private func broken() -> DesktopSourceFailure {
        let error = wl_display_get_error(display)
        if error == EPIPE || error == ECONNRESET || error == 0 {
            return DesktopSourceFailure("the Wayland compositor closed the connection: the session ended")
        }
        return DesktopSourceFailure("the Wayland connection failed: \(String(cString: strerror(error)))")
    }
}

/// What the compositor said of its toplevels: each one's pending and committed app id and states, by handle.
final class WlrootsToplevels {
    struct Toplevel {
        var order: Int
        var appID: String?
        var activated = false
        var minimized = false
        var pending: (appID: String?, activated: Bool, minimized: Bool)
    }

    let phone: Bool
    var registry: OpaquePointer?
    var manager: OpaquePointer?
    var managerGlobal: (name: UInt32, version: UInt32)?
    var listeners: WlrootsListeners?
    private(set) var failure: DesktopSourceFailure?
    private var handles: [OpaquePointer: Toplevel] = [:]
    private var created = 0
    /// How many of the source's syncs the compositor answered: the first after the globals, the second after the
    /// toplevels it had when the manager was bound.
    private(set) var syncs = 0
    private var changed = true
    private var last: DesktopPicture?
    /// A compositor that names more toplevels than this is not read: a bound on what it makes the agent keep.
    static let maximumToplevels = 4096
    /// An app id longer than this is cut: no app's id is that long (I12).
    static let maximumAppID = 255

    init(phone: Bool) { self.phone = phone }

    func global(name: UInt32, interface: String, version: UInt32) {
        if interface == "zwlr_foreign_toplevel_manager_v1" { managerGlobal = (name, version) }
    }

    func added(_ handle: OpaquePointer) {
        guard handles.count < Self.maximumToplevels else {
            failure = DesktopSourceFailure("the compositor named more than \(Self.maximumToplevels) windows")
            zwlr_foreign_toplevel_handle_v1_destroy(handle)
            return
        }
        created += 1
        handles[handle] = Toplevel(order: created, pending: (nil, false, false))
        if let listeners {
            zwlr_foreign_toplevel_handle_v1_add_listener(
                handle,
                listeners.handle,
                Unmanaged.passUnretained(self).toOpaque()
            )
        }
    }

    func appID(_ handle: OpaquePointer, _ text: UnsafePointer<CChar>?) {
        guard let text else { return }
        handles[handle]?.pending.appID = String(String(cString: text).prefix(Self.maximumAppID))
    }

    func state(_ handle: OpaquePointer, _ array: UnsafeMutablePointer<wl_array>?) {
        var activated = false
        var minimized = false
        if let array, let data = array.pointee.data {
            let count = array.pointee.size / MemoryLayout<UInt32>.size
            for value in UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt32.self), count: count) {
                if value == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED.rawValue { activated = true }
                if value == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_MINIMIZED.rawValue { minimized = true }
            }
        }
        handles[handle]?.pending.activated = activated
        handles[handle]?.pending.minimized = minimized
    }

    /// `done`: the toplevel's pending names and states hold from now on.
    func done(_ handle: OpaquePointer) {
        guard var toplevel = handles[handle] else { return }
        toplevel.appID = toplevel.pending.appID
        toplevel.activated = toplevel.pending.activated
        toplevel.minimized = toplevel.pending.minimized
        handles[handle] = toplevel
        changed = true
    }

    func closed(_ handle: OpaquePointer) {
        handles[handle] = nil
        zwlr_foreign_toplevel_handle_v1_destroy(handle)
        changed = true
    }

    func finished() {
        manager = nil
        failure = DesktopSourceFailure("the compositor stopped telling its windows (foreign-toplevel finished)")
    }

    func syncDone() { syncs += 1 }

    /// The picture, once the first toplevels came, when it differs from the last one given.
    func takePicture() -> DesktopPicture? {
        guard syncs >= 2, changed else { return nil }
        changed = false
        let windows = handles.values.sorted { $0.order < $1.order }.map { toplevel in
            DesktopWindow(
                appID: toplevel.appID,
                pid: nil,
                focused: toplevel.activated,
                minimized: toplevel.minimized || (phone && !toplevel.activated)
            )
        }
        let picture = DesktopPicture(windows: windows)
        guard picture != last else { return nil }
        last = picture
        return picture
    }

    func destroyAll() {
        for handle in handles.keys { zwlr_foreign_toplevel_handle_v1_destroy(handle) }
        handles = [:]
        if let manager { zwlr_foreign_toplevel_manager_v1_destroy(manager) }
        if let registry { wl_registry_destroy(registry) }
    }
}
