import NIOCore

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

extension VarlinkReply {
    /// The reply's JSON text and its NUL: the same text as ``write(to:)``.
    func frameBytes() -> [UInt8] {
        Self.frameBytes(error: error, continues: continues) { parameters.write(into: &$0) }
    }

    /// A reply's text around the parameters object `parameters` writes, and its NUL.
    static func frameBytes(error: String?, continues: Bool, _ parameters: (inout [UInt8]) -> Void) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes.append(UInt8(ascii: "{"))
        if let error {
            bytes.append(contentsOf: "\"error\":".utf8)
            JSONValue.writeString(error, into: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        bytes.append(contentsOf: "\"parameters\":".utf8)
        parameters(&bytes)
        if continues { bytes.append(contentsOf: ",\"continues\":true".utf8) }
        bytes.append(UInt8(ascii: "}"))
        bytes.append(0)
        return bytes
    }
}

/// A reply already written as its frame, to send to one connection or many.
public struct VarlinkEncodedReply: Sendable {
    /// The reply's JSON text and its NUL.
    public let frame: ByteBuffer
    public let continues: Bool

    public init(_ reply: VarlinkReply) {
        frame = ByteBuffer(bytes: reply.frameBytes())
        continues = reply.continues
    }

    /// A reply of a stream that continues, its parameters object written by `parameters` straight into the
    /// frame's bytes: the text ``init(_:)`` writes for the same object, without building the object first,
    /// for messages sent by the thousand.
    package init(continuing parameters: (inout [UInt8]) -> Void) {
        self.init(continues: true, parameters: parameters)
    }

    /// A reply, final or not, its parameters object written by `parameters` straight into the frame's bytes,
    /// as ``init(continuing:)`` does: for replies sent at every call of a busy method.
    package init(continues: Bool, parameters: (inout [UInt8]) -> Void) {
        frame = ByteBuffer(bytes: VarlinkReply.frameBytes(error: nil, continues: continues, parameters))
        self.continues = continues
    }

    /// The final reply with no parameters, encoded once and shared: every `InvalidateSession` gets it.
    public static let empty = VarlinkEncodedReply(VarlinkReply(parameters: [:]))
}
