import JSON
import LocationProtocol
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// What a ``LocdLink`` needs of the thread that serves it: to wait for its socket to be readable, and writable while
/// it has bytes to send. ``BusConnection`` is one; the thread calls ``LocdLink/readable()`` and
/// ``LocdLink/writable()``.
protocol LinkWatcher: AnyObject {
    /// Starts waiting for `descriptor` to be readable; the token that names the watch, or `nil` (errno says why).
    func watch(_ descriptor: Int32, _ link: LocdLink) -> UInt64?
    /// Whether the watch also waits for room to write.
    func watchWritable(_ descriptor: Int32, token: UInt64, _ writable: Bool)
    /// Ends a watch, before its descriptor is closed.
    func unwatch(_ descriptor: Int32, token: UInt64)
}

/// One connection to locd, served by the bus thread itself (``BusConnection``): a call is written where it is made, a
/// reply read as soon as the bus thread's wait finds it and handed to its call's handler there. A `Start` then costs
/// no hand-over between threads: on a small machine each wake-up of another thread costs more than the call.
///
/// Varlink answers a connection's calls in order, so handlers wait in a queue; a call with `more` keeps its handler
/// until its last reply (`continues` false). Bounded: a reply over 16 MiB or 1 MiB of unsent calls fails the link.
final class LocdLink {
    /// A reply to a call, or why the connection ended before one came.
    typealias Handler = (Result<VarlinkReply, LinkFailure>) -> Void

    /// Why a connection to locd ended: what happened, in words for a log or a refusal's message.
    struct LinkFailure: Error, CustomStringConvertible {
        var description: String
        /// locd's refusal of the connection's `Hello`, when that is what ended it: a decision, not locd going away.
        var refusal: (any Error)? = nil
    }

    static let maximumReply = 16 << 20
    static let maximumUnsent = 1 << 20

    private let descriptor: Int32
    /// Holds the link while it watches it (until the link closes): strong both ways until then.
    private let bus: any LinkWatcher
    private var token: UInt64 = 0
    private var unsent: [UInt8] = []
    private var received: [UInt8] = []
    /// How much of `received` is known to hold no end of a reply.
    private var searched = 0
    private var handlers: [Handler] = []
    private(set) var isOpen = true

    /// Connects to locd at `path` and says `Hello` with `parameters`, passing `pidfd` in the same `sendmsg` (a
    /// broker's `Hello`, SEMANTICS I8, I9); `hello` gets its reply. Calls may follow at once: locd answers them after.
    convenience init(
        path: String,
        hello parameters: JSONObject,
        passing pidfd: Int32,
        on bus: any LinkWatcher,
        _ hello: @escaping Handler
    ) throws(LinkFailure) {
        let client: VarlinkClient
        do {
            client = try VarlinkClient(path: path, nonBlocking: true)
            try client.send(VarlinkCall(method: AppMethod.hello.name, parameters: parameters), passing: pidfd)
        } catch {
            throw LinkFailure(description: "\(error)")
        }
        try self.init(connected: client.releaseDescriptor(), on: bus, waiting: hello)
    }

    /// A link on `descriptor`, a connected socket it then owns, whose first reply goes to `first`.
    init(connected descriptor: Int32, on bus: any LinkWatcher, waiting first: @escaping Handler) throws(LinkFailure) {
        self.descriptor = descriptor
        self.bus = bus
        handlers = [first]
        guard let token = bus.watch(descriptor, self) else {
            // Every property is set by now, so deinit runs after the throw: it closes only an open link.
            isOpen = false
            Glibc.close(descriptor)
            throw LinkFailure(description: "cannot watch the connection to locd: \(String(cString: strerror(errno)))")
        }
        self.token = token
    }

    deinit {
        if isOpen { Glibc.close(descriptor) }
    }

    /// Calls `method`; `handler` gets its reply, or each of them while `more` keeps the call going. On a closed link
    /// the handler hears so at once.
    func call(_ method: String, _ parameters: JSONObject = [:], more: Bool = false, _ handler: @escaping Handler) {
        guard isOpen else { return handler(.failure(LinkFailure(description: "the connection to locd is closed"))) }
        handlers.append(handler)
        write(VarlinkCall(method: method, parameters: parameters, more: more))
    }

    /// Calls `method` with `oneway`: locd sends no reply, and nobody waits for one. Nothing on a closed link.
    func send(_ method: String, _ parameters: JSONObject = [:]) {
        guard isOpen else { return }
        write(VarlinkCall(method: method, parameters: parameters, oneway: true))
    }

    /// Writes a call's frame, or queues what the socket does not take now.
    private func write(_ call: VarlinkCall) {
        var frame = Array(call.serialized.utf8)
        frame.append(0)
        if unsent.isEmpty {
            let written = writeNow(frame[...])
            if written < frame.count { unsent.append(contentsOf: frame[written...]) }
        } else {
            unsent.append(contentsOf: frame)
        }
        guard unsent.count <= Self.maximumUnsent else {
            return fail("locd does not read what locd-geoclue sends (over \(Self.maximumUnsent) bytes wait)")
        }
        if !unsent.isEmpty { bus.watchWritable(descriptor, token: token, true) }
    }

    /// Closes the connection without a word to locd; the handlers still waiting hear nothing.
    func close() {
        guard isOpen else { return }
        isOpen = false
        handlers = []
        bus.unwatch(descriptor, token: token)
        Glibc.close(descriptor)
    }

    /// Closes the connection and tells every handler still waiting why; `refusal` when locd refused its `Hello`.
    func fail(_ reason: String, refusal: (any Error)? = nil) {
        guard isOpen else { return }
        let waiting = handlers
        close()
        let failure = LinkFailure(description: reason, refusal: refusal)
        for handler in waiting { handler(.failure(failure)) }
    }

    /// The socket has bytes or an end to read: reads all there is and hands each whole reply to its handler.
    func readable() {
        var chunk = [UInt8](repeating: 0, count: 16384)
        var ended = false
        while true {
            let count = recv(descriptor, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                received.append(contentsOf: chunk[..<count])
                if count < chunk.count { break }
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            ended = true
            break
        }
        dispatchReplies()
        if ended { fail("locd closed the connection") }
    }

    /// The socket has room: writes what waits.
    func writable() {
        guard isOpen, !unsent.isEmpty else { return }
        let written = writeNow(unsent[...])
        unsent.removeFirst(written)
        if unsent.isEmpty { bus.watchWritable(descriptor, token: token, false) }
    }

    /// Writes what the socket takes of `bytes` without waiting; returns how much. A broken socket fails the link on
    /// its next read.
    private func writeNow(_ bytes: ArraySlice<UInt8>) -> Int {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written > 0 {
                offset += written
                continue
            }
            if written < 0 && errno == EINTR { continue }
            break
        }
        return offset - bytes.startIndex
    }

    /// Hands each whole reply received to the handler of its call, in order.
    private func dispatchReplies() {
        var start = 0
        // Bytes before `searched` hold no end of a reply: a long reply read in pieces is searched once.
        var from = searched
        while isOpen, let end = received[from...].firstIndex(of: 0) {
            let frame = received[start..<end]
            start = end + 1
            from = start
            guard let reply = VarlinkReply.decode(frame) else { return fail("locd sent a reply that is not Varlink") }
            guard let handler = handlers.first else { return fail("locd sent a reply to no call") }
            if !reply.continues || reply.error != nil { handlers.removeFirst() }
            handler(.success(reply))
        }
        guard isOpen else { return }
        received.removeFirst(start)
        searched = received.count
        if received.count > Self.maximumReply { fail("locd sent a reply over \(Self.maximumReply) bytes") }
    }
}
