import JSON

#if canImport(Glibc)
import Glibc
#endif

/// A blocking Varlink client on a Unix socket: one connection, calls answered in order.
///
/// For command-line tools and tests; each read waits at most ``timeout`` seconds.
public final class VarlinkClient {
    /// Why a connection or a call failed, in words about the transport only: a tool or library that knows which
    /// service it talks to wraps these with what to do about it.
    public enum ClientError: Error, Hashable, CustomStringConvertible {
        case connect(path: String, errno: Int32)
        case closed
        case timedOut
        case malformedReply
        case tooLarge

        public var description: String {
            switch self {
            case .connect(let path, let code):
                "cannot connect to \(path): \(String(cString: strerror(code)))"
            case .closed: "the server closed the connection"
            case .timedOut: "no reply from the server in time"
            case .malformedReply: "the server sent a reply that is not valid Varlink"
            case .tooLarge: "reply larger than the client accepts"
            }
        }
    }

    private let descriptor: Int32
    /// Whether the client still owns ``descriptor`` and closes it when it goes (see ``releaseDescriptor()``).
    private var ownsDescriptor = true
    private var buffer: [UInt8] = []
    public var timeout: Double
    public let maximumReplyBytes = 16 << 20

    /// Connects to the socket at `path`.
    /// - Parameter nonBlocking: make the socket non-blocking, for a caller that must not wait (an event loop): a
    ///   listener whose queue is full refuses at once (`EAGAIN`), and a send the socket has no room for fails
    ///   with ``ClientError/closed`` rather than waiting; ``receive()`` still waits up to ``timeout``.
    public init(path: String, timeout: Double = 10, nonBlocking: Bool = false) throws {
        self.timeout = timeout
        // The socket is the client's only once connected: a throw before that closes it here, and a throw after
        // ``descriptor`` is set would run deinit too, which would close it a second time, and by then the number
        // may be another thread's new descriptor.
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let socketDescriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | flags, 0)
        guard socketDescriptor >= 0 else { throw ClientError.connect(path: path, errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(socketDescriptor)
            throw ClientError.connect(path: path, errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(socketDescriptor)
            throw ClientError.connect(path: path, errno: code)
        }
        descriptor = socketDescriptor
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    /// Gives the connected socket to the caller, who then owns it and must close it; the client must not be used
    /// after. For a connection identified here (a call passing a descriptor) and then served by another client.
    public func releaseDescriptor() -> Int32 {
        ownsDescriptor = false
        return descriptor
    }

    /// The socket, for a caller that waits on it together with other descriptors (`poll`), such as
    /// a prompt agent that also reads a terminal.
    public var fileDescriptor: Int32 { descriptor }

    /// Whether a whole reply is already buffered, so that ``receive()`` returns it without reading.
    public var hasBufferedReply: Bool { buffer.contains(0) }

    /// Sends a call without waiting for its reply.
    public func send(_ call: VarlinkCall) throws {
        try sendRaw(Array(call.serialized.utf8) + [0])
    }

    /// Sends a call without waiting for its reply, passing `descriptor` with its bytes (`SCM_RIGHTS`, in the same
    /// `sendmsg` as the call's first bytes), as a broker passes a pidfd of the process it speaks for with
    /// `Hello`. The server receives a descriptor of its own; the caller keeps and closes `descriptor`.
    public func send(_ call: VarlinkCall, passing descriptor: Int32) throws {
        let bytes = Array(call.serialized.utf8) + [0]
        let written = try sendMessage(bytes, passing: descriptor)
        // A stream socket may take only part of a large frame: the descriptor went with that part.
        if written < bytes.count { try sendRaw(Array(bytes[written...])) }
    }

    /// Calls a method passing `descriptor` with it (see ``send(_:passing:)``) and returns its reply's
    /// parameters; an error reply throws ``VarlinkError``.
    @discardableResult
    public func call(_ method: String, _ parameters: JSONObject = [:], passing descriptor: Int32) throws -> JSONObject {
        try send(VarlinkCall(method: method, parameters: parameters), passing: descriptor)
        let reply = try receive()
        if let error = reply.error { throw VarlinkError(name: error, parameters: reply.parameters) }
        return reply.parameters
    }

    /// One `sendmsg` of `bytes` with `descriptor` as `SCM_RIGHTS`; returns how many bytes it took.
    private func sendMessage(_ bytes: [UInt8], passing descriptor: Int32) throws -> Int {
        // cmsghdr (16 bytes on 64-bit Linux) and one descriptor, padded to 8 bytes: CMSG_SPACE(4).
        let headerSize = MemoryLayout<cmsghdr>.size
        var control = [UInt64](repeating: 0, count: (headerSize + 8) / 8)
        var result = -1
        repeat {
            result = bytes.withUnsafeBytes { data in
                control.withUnsafeMutableBytes { controlBytes in
                    controlBytes.storeBytes(of: headerSize + 4, toByteOffset: 0, as: Int.self)
                    controlBytes.storeBytes(of: SOL_SOCKET, toByteOffset: 8, as: Int32.self)
                    controlBytes.storeBytes(of: Int32(SCM_RIGHTS), toByteOffset: 12, as: Int32.self)
                    controlBytes.storeBytes(of: descriptor, toByteOffset: headerSize, as: Int32.self)
                    var vector = iovec(
                        iov_base: UnsafeMutableRawPointer(mutating: data.baseAddress),
                        iov_len: data.count
                    )
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var message = msghdr()
                        message.msg_iov = vectorPointer
                        message.msg_iovlen = 1
                        message.msg_control = controlBytes.baseAddress
                        message.msg_controllen = controlBytes.count
                        return sendmsg(self.descriptor, &message, Int32(MSG_NOSIGNAL))
                    }
                }
            }
        } while result < 0 && errno == EINTR
        guard result > 0 else { throw ClientError.closed }
        return result
    }

    /// Sends raw bytes, as they are (for tests of bad input).
    public func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { throw ClientError.closed }
            offset += written
        }
    }

    /// Closes the sending half of the connection (`shutdown(SHUT_WR)`): the server reads end-of-file
    /// while replies can still arrive.
    public func finishSending() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads the next reply.
    public func receive() throws -> VarlinkReply {
        while true {
            if let nul = buffer.firstIndex(of: 0) {
                let frame = buffer[..<nul]
                defer { buffer.removeSubrange(...nul) }
                guard let reply = VarlinkReply.decode(frame) else { throw ClientError.malformedReply }
                return reply
            }
            guard buffer.count < maximumReplyBytes else { throw ClientError.tooLarge }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(timeout * 1000))
            guard ready > 0 else { throw ClientError.timedOut }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { throw ClientError.closed }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Calls a method and returns its reply's parameters; an error reply throws ``VarlinkError``.
    @discardableResult
    public func call(_ method: String, _ parameters: JSONObject = [:]) throws -> JSONObject {
        try send(VarlinkCall(method: method, parameters: parameters))
        let reply = try receive()
        if let error = reply.error { throw VarlinkError(name: error, parameters: reply.parameters) }
        return reply.parameters
    }

    /// Whether the peer has closed the connection (reads nothing and waits at most `within` seconds).
    public func isClosedByPeer(within seconds: Double) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(seconds * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        // End of file, or a reset (a Unix socket closed with unread data resets its peer).
        let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if count == 0 { return true }
        return count < 0 && errno != EAGAIN
    }
}
