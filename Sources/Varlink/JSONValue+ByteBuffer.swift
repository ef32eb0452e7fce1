import NIOCore

extension JSONValue {
    /// Appends the compact JSON text of the value straight into the frame being sent.
    ///
    /// The same text as ``write(to:)``, without an intermediate `String`: under load, writing replies
    /// scalar by scalar into a `String` and copying that into a buffer cost the daemon more than its whole
    /// session core (perf on `locd-bench`). A string with nothing to escape, which is every id and name the
    /// daemon sends, is copied in one piece.
    func write(into buffer: inout ByteBuffer) {
        switch self {
        case .null: buffer.writeStaticString("null")
        case .bool(let value): buffer.writeStaticString(value ? "true" : "false")
        case .int(let value): buffer.writeString(String(value))
        case .double:
            var text = ""
            write(to: &text)
            buffer.writeString(text)
        case .string(let value): JSONValue.writeString(value, into: &buffer)
        case .array(let values):
            buffer.writeInteger(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                value.write(into: &buffer)
            }
            buffer.writeInteger(UInt8(ascii: "]"))
        case .object(let object): object.write(into: &buffer)
        }
    }

    static func writeString(_ string: String, into buffer: inout ByteBuffer) {
        let plain = !string.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        guard plain else {
            var text = ""
            writeString(string, to: &text)
            buffer.writeString(text)
            return
        }
        buffer.writeInteger(UInt8(ascii: "\""))
        buffer.writeString(string)
        buffer.writeInteger(UInt8(ascii: "\""))
    }
}

extension JSONObject {
    /// Appends the object's compact JSON text, keys in their order.
    func write(into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "{"))
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            JSONValue.writeString(key, into: &buffer)
            buffer.writeInteger(UInt8(ascii: ":"))
            value.write(into: &buffer)
        }
        buffer.writeInteger(UInt8(ascii: "}"))
    }
}

extension VarlinkReply {
    /// Appends the reply's JSON text and its NUL: the same text as ``write(to:)``.
    func writeFrame(into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "{"))
        if let error {
            buffer.writeStaticString("\"error\":")
            JSONValue.writeString(error, into: &buffer)
            buffer.writeInteger(UInt8(ascii: ","))
        }
        buffer.writeStaticString("\"parameters\":")
        parameters.write(into: &buffer)
        if continues { buffer.writeStaticString(",\"continues\":true") }
        buffer.writeInteger(UInt8(ascii: "}"))
        buffer.writeInteger(UInt8(0))
    }
}

/// A reply already written as its frame, to send to one connection or many.
public struct VarlinkEncodedReply: Sendable {
    /// The reply's JSON text and its NUL.
    public let frame: ByteBuffer
    public let continues: Bool

    public init(_ reply: VarlinkReply) {
        var frame = ByteBuffer()
        frame.reserveCapacity(256)
        reply.writeFrame(into: &frame)
        self.frame = frame
        continues = reply.continues
    }
}
