import CSdBus

/// A method reply from the bus, owned until it is dropped, read from its current position.
final class BusReply {
    let message: OpaquePointer
    /// The most elements read from one array: a bus peer cannot make the reader walk without end.
    static let maximumElements = 1024

    init(_ message: OpaquePointer) { self.message = message }

    deinit { sd_bus_message_unref(message) }

    private static func code(_ character: Character) -> CChar { CChar(bitPattern: character.asciiValue ?? 0) }

    /// A `v`: the value it holds.
    func readVariant() -> BusValue {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(message, &type, &contents) > 0, type == Self.code("v"), let contents else {
            return .other
        }
        let signature = String(cString: contents)
        guard sd_bus_message_enter_container(message, type, contents) > 0 else { return .other }
        let value = readValue(signature)
        _ = sd_bus_message_exit_container(message)
        return value
    }

    /// An `a{sv}`: each property by name.
    func readDictionary() -> [String: BusValue] {
        var properties: [String: BusValue] = [:]
        guard sd_bus_message_enter_container(message, Self.code("a"), "{sv}") > 0 else { return properties }
        while properties.count < Self.maximumElements,
            sd_bus_message_enter_container(message, Self.code("e"), "sv") > 0
        {
            var key: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(message, Self.code("s"), &key) > 0, let key else { break }
            properties[String(cString: key)] = readVariant()
            _ = sd_bus_message_exit_container(message)
        }
        _ = sd_bus_message_exit_container(message)
        return properties
    }

    /// An `ao`: the paths, at most ``maximumElements``.
    func readObjectPaths() -> [String] {
        var paths: [String] = []
        guard sd_bus_message_enter_container(message, Self.code("a"), "o") > 0 else { return paths }
        var path: UnsafePointer<CChar>?
        while paths.count < Self.maximumElements, sd_bus_message_read_basic(message, Self.code("o"), &path) > 0,
            let read = path
        {
            paths.append(String(cString: read))
        }
        _ = sd_bus_message_exit_container(message)
        return paths
    }

    /// A value of `signature`, the contents of a variant.
    private func readValue(_ signature: String) -> BusValue {
        switch signature {
        case "ay":
            var pointer: UnsafeRawPointer?
            var size = 0
            guard sd_bus_message_read_array(message, Self.code("y"), &pointer, &size) >= 0 else { return .other }
            guard let pointer, size > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: min(size, 256))))
        case "n":
            var value: Int16 = 0
            return sd_bus_message_read_basic(message, Self.code("n"), &value) > 0 ? .integer(Int(value)) : .other
        case "u":
            var value: UInt32 = 0
            return sd_bus_message_read_basic(message, Self.code("u"), &value) > 0 ? .integer(Int(value)) : .other
        case "x":
            var value: Int64 = 0
            return sd_bus_message_read_basic(message, Self.code("x"), &value) > 0 ? .integer(Int(value)) : .other
        case "y":
            var value: UInt8 = 0
            return sd_bus_message_read_basic(message, Self.code("y"), &value) > 0 ? .integer(Int(value)) : .other
        case "s":
            var value: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(message, Self.code("s"), &value) > 0, let value else { return .other }
            return .string(String(cString: value))
        case "ao":
            return .objectPaths(readObjectPaths())
        default:
            _ = sd_bus_message_skip(message, signature)
            return .other
        }
    }
}
