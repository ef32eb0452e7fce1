extension JSONValue {
    /// Appends the compact JSON text of the value: the same text as ``write(to:)``.
    ///
    /// Replies are built in a byte array and copied into the frame's buffer once: under load, writing replies
    /// scalar by scalar into a `String` cost the daemon more than its whole session core, and writing them
    /// into a `ByteBuffer` piece by piece paid the buffer's bounds and exclusivity checks at every comma
    /// (perf on `locd-bench`). A string with nothing to escape, which is every id and name the daemon sends,
    /// is copied in one piece.
    package func write(into bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): bytes.append(contentsOf: String(value).utf8)
        case .double:
            var text = ""
            write(to: &text)
            bytes.append(contentsOf: text.utf8)
        case .string(let value): JSONValue.writeString(value, into: &bytes)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                value.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object): object.write(into: &bytes)
        }
    }

    /// Appends `string` as a JSON string, escaped where JSON asks.
    package static func writeString(_ string: String, into bytes: inout [UInt8]) {
        let plain = string.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        guard plain else {
            var text = ""
            writeString(string, to: &text)
            bytes.append(contentsOf: text.utf8)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: string.utf8)
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONObject {
    /// Appends the object's compact JSON text, keys in their order.
    package func write(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.writeString(key, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            value.write(into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
