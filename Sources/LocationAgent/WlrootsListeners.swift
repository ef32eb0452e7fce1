import CWaylandClient
import CWlrForeignToplevel

/// The C listeners of the wlroots source's Wayland objects, kept for the connection's life: each passes its event to
/// the ``WlrootsToplevels`` its object was given as data. Every event has a function, as libwayland calls each.
final class WlrootsListeners {
    let registry: UnsafeMutablePointer<wl_registry_listener>
    let manager: UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener>
    let handle: UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener>
    let sync: UnsafeMutablePointer<wl_callback_listener>

    private static func toplevels(_ data: UnsafeMutableRawPointer?) -> WlrootsToplevels? {
        data.map { Unmanaged<WlrootsToplevels>.fromOpaque($0).takeUnretainedValue() }
    }

    init() {
        registry = .allocate(capacity: 1)
        registry.initialize(
            to: wl_registry_listener(
                global: { data, _, name, interface, version in
                    guard let interface else { return }
                    WlrootsListeners.toplevels(data)?
                        .global(name: name, interface: String(cString: interface), version: version)
                },
                global_remove: { _, _, _ in }
            )
        )
        manager = .allocate(capacity: 1)
        manager.initialize(
            to: zwlr_foreign_toplevel_manager_v1_listener(
                toplevel: { data, _, handle in
                    guard let handle else { return }
                    WlrootsListeners.toplevels(data)?.added(handle)
                },
                finished: { data, _ in WlrootsListeners.toplevels(data)?.finished() }
            )
        )
        handle = .allocate(capacity: 1)
        handle.initialize(to: Self.handleListener())
        sync = .allocate(capacity: 1)
        sync.initialize(
            to: wl_callback_listener(done: { data, callback, _ in
                WlrootsListeners.toplevels(data)?.syncDone()
                wl_callback_destroy(callback)
            })
        )
    }

    private static func handleListener() -> zwlr_foreign_toplevel_handle_v1_listener {
        zwlr_foreign_toplevel_handle_v1_listener(
            title: { _, _, _ in },
            app_id: { data, handle, text in
                guard let handle else { return }
                WlrootsListeners.toplevels(data)?.appID(handle, text)
            },
            output_enter: { _, _, _ in },
            output_leave: { _, _, _ in },
            state: { data, handle, array in
                guard let handle else { return }
                WlrootsListeners.toplevels(data)?.state(handle, array)
            },
            done: { data, handle in
                guard let handle else { return }
                WlrootsListeners.toplevels(data)?.done(handle)
            },
            closed: { data, handle in
                guard let handle else { return }
                WlrootsListeners.toplevels(data)?.closed(handle)
            },
            parent: { _, _, _ in }
        )
    }

    deinit {
        registry.deallocate()
        manager.deallocate()
        handle.deallocate()
        sync.deallocate()
    }
}
