import CEpoll

#if canImport(Glibc)
import Glibc
#endif

/// Many Varlink client connections driven from one thread by `epoll`, so that 10,000 of them cost
/// 10,000 descriptors and buffers rather than 10,000 threads.
///
/// Everything runs on the calling thread: scenarios set ``onFrame`` and ``onClose``, send calls, and
/// ``run(until:timeout:)`` reads replies until their condition holds. Frames are handed over as they
/// arrive, without their NUL and unparsed, so that the client side costs little beside the daemon.
final class ClientDriver {
    /// One connection's descriptor and buffers.
    private struct Connection {
        var descriptor: Int32
        var inbound: [UInt8] = []
        var outbound: [UInt8] = []
        var open = true
    }

    private let epoll: Int32
    private var connections: [Connection] = []
    /// Descriptor → connection index.
    private var indexOf: [Int32: Int] = [:]
    private var readBuffer = [UInt8](repeating: 0, count: 1 << 16)
    private var events = [epoll_event](repeating: epoll_event(), count: 1024)

    /// Called with the connection index and one frame (without its NUL).
    var onFrame: (Int, ArraySlice<UInt8>) throws -> Void = { _, _ in }
    /// When the read that brought the frame being handed to ``onFrame`` returned (`CLOCK_REALTIME`): when it
    /// reached the benchmark, however long the frames before it in the same read took to handle.
    private(set) var receivedAt = 0.0
    /// Called when the peer closed a connection.
    var onClose: (Int) throws -> Void = { _ in }

    init() throws {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw BenchError.system("epoll_create1", errno) }
    }

    deinit {
        for connection in connections where connection.open { Glibc.close(connection.descriptor) }
        Glibc.close(epoll)
    }

    /// Connects to the Unix socket at `path` and returns the new connection's index.
    ///
    /// The connect blocks while the server's backlog is full, which paces 10,000 connects to the speed
    /// the server accepts them; the connection is non-blocking afterwards.
    @discardableResult
    func connect(path: String) throws -> Int {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError.system("socket (raise the open-file limit?)", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw BenchError.system("connect to \(path)", code)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let index = connections.count
        connections.append(Connection(descriptor: descriptor))
        indexOf[descriptor] = index
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = descriptor
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
            throw BenchError.system("epoll_ctl", errno)
        }
        return index
    }

    /// Queues `bytes` on connection `index` and writes as much as the socket takes now.
    func send(_ index: Int, _ bytes: [UInt8]) throws {
        guard connections[index].open else { throw BenchError.failed("connection \(index) was closed by locd") }
        if connections[index].outbound.isEmpty {
            let written = bytes.withUnsafeBytes {
                Glibc.send(connections[index].descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written == bytes.count { return }
            if written < 0 && errno != EAGAIN { throw BenchError.system("send", errno) }
            connections[index].outbound = Array(bytes[max(written, 0)...])
            try watch(index, writable: true)
        } else {
            connections[index].outbound += bytes
        }
    }

    /// Closes connection `index` (the daemon sees a disconnect without `Goodbye`).
    func close(_ index: Int) {
        guard connections[index].open else { return }
        connections[index].open = false
        indexOf.removeValue(forKey: connections[index].descriptor)
        Glibc.close(connections[index].descriptor)
        connections[index].inbound = []
        connections[index].outbound = []
    }

    /// Reads and dispatches frames until `done()` holds; throws if `timeout` seconds pass first.
    func run(until done: () -> Bool, timeout: Double, what: @autoclosure () -> String) throws {
        let deadline = Clock.now + timeout
        while !done() {
            let left = deadline - Clock.now
            guard left > 0 else { throw BenchError.failed("timed out after \(timeout) s waiting for \(what())") }
            try poll(milliseconds: Int32(min(left, 0.1) * 1000) + 1)
        }
    }

    /// One `epoll_wait` of at most `milliseconds` and the reads and writes it reports: for scenarios that act
    /// on a schedule of their own between reads.
    func pump(milliseconds: Int32) throws {
        try poll(milliseconds: milliseconds)
    }

    /// One `epoll_wait` and the reads and writes it reports.
    private func poll(milliseconds: Int32) throws {
        let count = epoll_wait(epoll, &events, Int32(events.count), milliseconds)
        if count < 0 {
            if errno == EINTR { return }
            throw BenchError.system("epoll_wait", errno)
        }
        for slot in 0..<Int(count) {
            let event = events[slot]
            guard let index = indexOf[event.data.fd] else { continue }
            if event.events & EPOLLOUT.rawValue != 0 { try flush(index) }
            if event.events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { try read(index) }
        }
    }

    private func read(_ index: Int) throws {
        while connections[index].open {
            let descriptor = connections[index].descriptor
            let count = readBuffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
                close(index)
                try onClose(index)
                return
            }
            if count < 0 { return }
            receivedAt = Clock.unixTime
            try deliver(index, readBuffer[..<count])
            if count < readBuffer.count { return }
        }
    }

    /// Splits what arrived into frames; a partial frame waits in the connection's buffer.
    private func deliver(_ index: Int, _ chunk: ArraySlice<UInt8>) throws {
        if connections[index].inbound.isEmpty {
            var start = chunk.startIndex
            while let nul = chunk[start...].firstIndex(of: 0) {
                try onFrame(index, chunk[start..<nul])
                start = nul + 1
                guard connections[index].open else { return }
            }
            if start < chunk.endIndex { connections[index].inbound.append(contentsOf: chunk[start...]) }
            return
        }
        connections[index].inbound.append(contentsOf: chunk)
        let buffered = connections[index].inbound
        var start = 0
        while let nul = buffered[start...].firstIndex(of: 0) {
            try onFrame(index, buffered[start..<nul])
            start = nul + 1
            guard connections[index].open else { return }
        }
        connections[index].inbound.removeFirst(start)
    }

    private func flush(_ index: Int) throws {
        let descriptor = connections[index].descriptor
        let written = connections[index].outbound.withUnsafeBytes {
            Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        }
        if written < 0 {
            if errno == EAGAIN { return }
            throw BenchError.system("send", errno)
        }
        connections[index].outbound.removeFirst(written)
        if connections[index].outbound.isEmpty { try watch(index, writable: false) }
    }

    private func watch(_ index: Int, writable: Bool) throws {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        event.data.fd = connections[index].descriptor
        guard epoll_ctl(epoll, EPOLL_CTL_MOD, connections[index].descriptor, &event) == 0 else {
            throw BenchError.system("epoll_ctl", errno)
        }
    }
}
