import JSON
import NIOCore

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
