import CSdBus

#if canImport(Glibc)
import Glibc
#endif

/// A blocking client of the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the system's own) for the thread that
/// reads the access points: method calls with a timeout, and the properties in their replies. It starts no service
/// (the calls do not auto-start), so asking after wpa_supplicant does not launch it.
final class SystemBusClient {
    let bus: OpaquePointer
    /// How long one call may take, in microseconds.
    static let callTimeout: UInt64 = 2_000_000

    init() throws(BusError) {
        var opened: OpaquePointer?
        let result = sd_bus_open_system(&opened)
        guard result >= 0, let opened else {
            throw BusError("cannot connect to the system bus: \(Self.describe(result))")
        }
        bus = opened
    }

    deinit { sd_bus_flush_close_unref(bus) }

    static func describe(_ code: Int32) -> String { String(cString: strerror(-code)) }

    /// Calls `member` with string arguments and returns its reply.
    func call(
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ member: String,
        _ arguments: [String] = []
    )
        throws(BusError) -> BusReply
    {
        try call(destination, path, interface, member) { message in
            var result: Int32 = 0
            for argument in arguments where result >= 0 {
                result = argument.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
            }
            return result
        }
    }

    /// Calls `member` with one `a{sv}` argument of string values, as wpa_supplicant's `Scan` and NetworkManager's
    /// `RequestScan` take their options.
    @discardableResult
    func call(
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ member: String,
        options: [String: String]
    ) throws(BusError) -> BusReply {
        try call(destination, path, interface, member) { message in
            appendOptions(options, to: message)
        }
    }

    /// Appends `options` to `message` as one `a{sv}` of string values; sd-bus's result, negative on failure.
    private func appendOptions(_ options: [String: String], to message: OpaquePointer) -> Int32 {
        let (array, entry, variant, string) = (code("a"), code("e"), code("v"), code("s"))
        var result = sd_bus_message_open_container(message, array, "{sv}")
        for (key, value) in options.sorted(by: { $0.key < $1.key }) where result >= 0 {
            result = sd_bus_message_open_container(message, entry, "sv")
            if result >= 0 { result = key.withCString { sd_bus_message_append_basic(message, string, $0) } }
            if result >= 0 { result = sd_bus_message_open_container(message, variant, "s") }
            if result >= 0 { result = value.withCString { sd_bus_message_append_basic(message, string, $0) } }
            if result >= 0 { result = sd_bus_message_close_container(message) }
            if result >= 0 { result = sd_bus_message_close_container(message) }
        }
        if result >= 0 { result = sd_bus_message_close_container(message) }
        return result
    }

    /// Makes a call of `member` (never starting a service), has `append` write its arguments, sends it and waits for
    /// its reply.
    private func call(
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ member: String,
        append: (OpaquePointer) -> Int32
    ) throws(BusError) -> BusReply {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else {
            throw BusError("cannot make a call to \(destination): \(Self.describe(result))")
        }
        defer { sd_bus_message_unref(message) }
        _ = sd_bus_message_set_auto_start(message, 0)
        result = append(message)
        guard result >= 0 else { throw BusError("cannot make a call to \(destination): \(Self.describe(result))") }
        return try send(message, destination, path, interface, member)
    }

    private func code(_ character: Character) -> CChar { CChar(bitPattern: character.asciiValue ?? 0) }

    /// Sends `message` and waits for its reply.
    private func send(
        _ message: OpaquePointer,
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ member: String
    ) throws(BusError) -> BusReply {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(bus, message, Self.callTimeout, &error, &reply)
        guard result >= 0, let reply else {
            let name = error.name.map { String(cString: $0) } ?? Self.describe(result)
            throw BusError(
                "\(interface).\(member) on \(path) of \(destination) failed: \(name)",
                name: error.name.map { String(cString: $0) }
            )
        }
        return BusReply(reply)
    }

    /// One property, read with `org.freedesktop.DBus.Properties.Get`.
    func property(
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ name: String
    ) throws(BusError) -> BusValue {
        let reply = try call(destination, path, "org.freedesktop.DBus.Properties", "Get", [interface, name])
        return reply.readVariant()
    }

    /// Every property of `interface`, read with `org.freedesktop.DBus.Properties.GetAll`.
    func properties(_ destination: String, _ path: String, _ interface: String) throws(BusError) -> [String: BusValue] {
        try call(destination, path, "org.freedesktop.DBus.Properties", "GetAll", [interface]).readDictionary()
    }

    /// Whether a peer owns `name` now.
    func hasOwner(_ name: String) throws(BusError) -> Bool {
        let reply = try call(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "NameHasOwner",
            [name]
        )
        var owned: Int32 = 0
        return sd_bus_message_read_basic(reply.message, CChar(UInt8(ascii: "b")), &owned) > 0 && owned != 0
    }
}
