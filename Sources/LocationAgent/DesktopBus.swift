import CSdBus

#if canImport(Glibc)
import Glibc
#endif

/// The session-bus connection of a desktop source that the desktop reports to over D-Bus (GNOME Shell's extension,
/// KWin's script): a connection of the source's own, so that its matches and names are its own.
enum DesktopBus {
    /// Connects to the session bus at `address` (`DBUS_SESSION_BUS_ADDRESS`), or to the user's own when `nil`.
    /// - Throws: ``DesktopSourceFailure`` when the session bus cannot be reached.
    static func open(address: String?) throws(DesktopSourceFailure) -> OpaquePointer {
        var opened: OpaquePointer?
        var result: Int32
        if let address {
            result = sd_bus_new(&opened)
            if result >= 0 { result = sd_bus_set_address(opened, address) }
            if result >= 0 { result = sd_bus_set_bus_client(opened, 1) }
            if result >= 0 { result = sd_bus_start(opened) }
        } else {
            result = sd_bus_open_user(&opened)
        }
        guard result >= 0, let opened else {
            if let opened { sd_bus_unref(opened) }
            throw DesktopSourceFailure("cannot connect to the session bus: \(String(cString: strerror(-result)))")
        }
        return opened
    }
}
