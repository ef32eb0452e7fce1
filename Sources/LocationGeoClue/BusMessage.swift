import CSdBus

/// A message sd-bus handed to a callback, with typed reads and appends for the signatures GeoClue2 uses.
///
/// Valid only during the callback, unless ``retained()`` keeps it for a later reply.
struct BusMessage {
    let raw: OpaquePointer

    var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }
    var path: String? { sd_bus_message_get_path(raw).map { String(cString: $0) } }
    var interface: String? { sd_bus_message_get_interface(raw).map { String(cString: $0) } }
    var member: String? { sd_bus_message_get_member(raw).map { String(cString: $0) } }

    /// Reads a string-like argument: `s` or `o`.
    func readString(_ type: Character = "s") -> String? {
        var value: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(raw, code(type), &value) > 0, let value else { return nil }
        return String(cString: value)
    }

    func readUInt32() -> UInt32? {
        var value: UInt32 = 0
        return sd_bus_message_read_basic(raw, code("u"), &value) > 0 ? value : nil
    }

    /// Goes back to the first argument, after a look at the arguments.
    func rewind() {
        sd_bus_message_rewind(raw, 1)
    }

    @discardableResult
    func append(_ value: String, as type: Character = "s") -> Int32 {
        value.withCString { sd_bus_message_append_basic(raw, code(type), $0) }
    }

    @discardableResult
    func append(_ value: UInt32) -> Int32 {
        var copy = value
        return sd_bus_message_append_basic(raw, code("u"), &copy)
    }

    @discardableResult
    func append(_ value: Double) -> Int32 {
        var copy = value
        return sd_bus_message_append_basic(raw, code("d"), &copy)
    }

    @discardableResult
    func append(_ value: Bool) -> Int32 {
        var copy: Int32 = value ? 1 : 0
        return sd_bus_message_append_basic(raw, code("b"), &copy)
    }

    /// A reference of its own, for a reply sent after the callback returned; ``release()`` it after.
    func retained() -> BusMessage {
        BusMessage(raw: sd_bus_message_ref(raw))
    }

    func release() {
        sd_bus_message_unref(raw)
    }

    func replyEmpty() {
        _ = csdbus_reply_empty(raw)
    }

    func reply(objectPath: String) {
        _ = csdbus_reply_object_path(raw, objectPath)
    }

    func reply(_ error: GeoClueError) {
        _ = csdbus_reply_error(raw, error.name, error.message)
    }

    private func code(_ type: Character) -> CChar {
        CChar(bitPattern: type.asciiValue ?? 0)
    }
}
