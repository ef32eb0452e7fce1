import NIOCore

/// Splits the byte stream into NUL-terminated frames, refusing any longer than the limit.
public struct VarlinkFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    /// A frame passed the limit; the connection is answered once and closed.
    public struct FrameTooLarge: Error, Hashable {
        public let maximum: Int
    }

    public let maximumFrameLength: Int

    public init(maximumFrameLength: Int) {
        self.maximumFrameLength = maximumFrameLength
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try Self.nextFrame(in: &buffer, maximum: maximumFrameLength) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    public mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        // A partial frame at EOF is dropped: the peer is gone and nothing can answer it.
        while let frame = try Self.nextFrame(in: &buffer, maximum: maximumFrameLength) {
            context.fireChannelRead(wrapInboundOut(frame))
        }
        buffer.clear()
        return .needMoreData
    }

    /// The next complete frame (without its NUL), `nil` if none is complete yet.
    public static func nextFrame(in buffer: inout ByteBuffer, maximum: Int) throws -> ByteBuffer? {
        let view = buffer.readableBytesView
        guard let nul = view.firstIndex(of: 0) else {
            if view.count > maximum { throw FrameTooLarge(maximum: maximum) }
            return nil
        }
        let length = nul - view.startIndex
        if length > maximum { throw FrameTooLarge(maximum: maximum) }
        let frame = buffer.readSlice(length: length)
        buffer.moveReaderIndex(forwardBy: 1)
        return frame
    }
}
