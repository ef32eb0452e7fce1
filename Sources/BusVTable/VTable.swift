import CSdBus

#if canImport(Glibc)
import Glibc
#endif

/// An sd-bus vtable and the strings it points to, in memory of its own: sd-bus reads the table at every call
/// on an object registered with it, so it lives as long as the service.
///
/// Shared by the services on a bus: locd-geoclue's GeoClue2 objects and locd-agent's tray item.
///
/// Every method and writable property is `SD_BUS_VTABLE_UNPRIVILEGED`. Without it sd-bus lets through only callers
/// of the service's own uid, root, or holders of `CAP_SYS_ADMIN`, and answers everyone else `AccessDenied` before
/// the handler runs: every desktop user's GeoClue client. Who may use what is decided in the handlers (only the
/// creating peer uses a client) and by locd, as GeoClue does; the check would also cost a call to the bus for each
/// call it checks.
package final class VTable {
    /// One member of an interface, as the SD_BUS_* macros describe it.
    package enum Member {
        /// A method; `names` are its in then out argument names.
        case method(String, signature: String, result: String, names: [String], sd_bus_message_handler_t)
        case signal(String, signature: String, names: [String])
        case property(String, signature: String, sd_bus_property_get_t, flags: UInt64)
        case writableProperty(
            String,
            signature: String,
            sd_bus_property_get_t,
            sd_bus_property_set_t,
            flags: UInt64
        )
    }

    package let entries: UnsafeMutablePointer<sd_bus_vtable>
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private let count: Int

    package init(_ members: [Member]) {
        count = members.count + 2
        entries = .allocate(capacity: count)
        entries[0] = csdbus_vtable_start(0)
        for (index, member) in members.enumerated() {
            entries[index + 1] = entry(member)
        }
        entries[count - 1] = csdbus_vtable_end()
    }

    deinit {
        entries.deallocate()
        for string in strings { free(string) }
    }

    private func entry(_ member: Member) -> sd_bus_vtable {
        switch member {
        case .method(let name, let signature, let result, let names, let handler):
            csdbus_vtable_method(
                keep(name),
                keep(signature),
                keep(result),
                keep(joined(names)),
                handler,
                CSDBUS_VTABLE_UNPRIVILEGED
            )
        case .signal(let name, let signature, let names):
            csdbus_vtable_signal(keep(name), keep(signature), keep(joined(names)), 0)
        case .property(let name, let signature, let get, let flags):
            csdbus_vtable_property(keep(name), keep(signature), get, flags)
        case .writableProperty(let name, let signature, let get, let set, let flags):
            csdbus_vtable_writable_property(keep(name), keep(signature), get, set, flags | CSDBUS_VTABLE_UNPRIVILEGED)
        }
    }

    /// The names as sd-bus wants them: each followed by a NUL (the final NUL of the C string ends the list).
    private func joined(_ names: [String]) -> [UInt8] {
        names.flatMap { Array($0.utf8) + [0] }
    }

    private func keep(_ text: String) -> UnsafePointer<CChar> {
        keep(Array(text.utf8))
    }

    /// A copy of `bytes` with a NUL after them, owned by the table.
    private func keep(_ bytes: [UInt8]) -> UnsafePointer<CChar> {
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
        copy[bytes.count] = 0
        strings.append(copy)
        return UnsafePointer(copy)
    }
}
