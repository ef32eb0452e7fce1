import CSdBus

/// Reads of what agents answer: booleans, and the `u` properties of an `a{sv}` (GetAll, PropertiesChanged).
extension BusMessage {
    func readBool() -> Bool? {
        var value: Int32 = 0
        return sd_bus_message_read_basic(raw, CChar(UInt8(ascii: "b")), &value) > 0 ? value != 0 : nil
    }

    /// Whether the message is an error reply, and its name.
    var errorName: String? {
        guard sd_bus_message_is_method_error(raw, nil) > 0 else { return nil }
        return sd_bus_message_get_error(raw)?.pointee.name.map { String(cString: $0) } ?? "an error"
    }

    /// The `uint32` values of an `a{sv}` at the read position; entries of other types are skipped. `nil` when the
    /// argument is no `a{sv}`.
    func readUInt32Properties() -> [String: UInt32]? {
        guard sd_bus_message_enter_container(raw, CChar(UInt8(ascii: "a")), "{sv}") > 0 else { return nil }
        var found: [String: UInt32] = [:]
        while sd_bus_message_enter_container(raw, CChar(UInt8(ascii: "e")), "sv") > 0 {
            guard let name = readString() else { return nil }
            if sd_bus_message_enter_container(raw, CChar(UInt8(ascii: "v")), "u") > 0 {
                if let value = readUInt32() { found[name] = value }
                sd_bus_message_exit_container(raw)
            } else if sd_bus_message_skip(raw, "v") < 0 {
                return nil
            }
            sd_bus_message_exit_container(raw)
        }
        sd_bus_message_exit_container(raw)
        return found
    }
}
