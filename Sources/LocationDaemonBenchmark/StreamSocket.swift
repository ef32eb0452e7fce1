import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One blocking Unix stream socket the benchmark reads with a deadline: an `Admin.Watch` stream read frame by frame
/// (NUL-terminated), or sway's IPC socket read message by message.
final class StreamSocket {
    let path: String
    private let descriptor: Int32
    private var buffered: [UInt8] = []

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError.system("socket", errno) }
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
    }

    deinit { Glibc.close(descriptor) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BenchError.system("send to \(path)", errno) }
            sent += count
        }
    }

    /// The next NUL-terminated frame (a Varlink message) without its NUL, and `CLOCK_REALTIME` when the read that
    /// brought it returned; nil past `timeout` seconds.
    func frame(timeout: Double) throws -> (bytes: ArraySlice<UInt8>, receivedAt: Double)? {
        var receivedAt = Clock.unixTime
        let deadline = Clock.now + timeout
        while true {
            if let end = buffered.firstIndex(of: 0) {
                let frame = buffered[..<end]
                buffered.removeSubrange(...end)
                return (frame, receivedAt)
            }
            guard try fill(until: deadline) else { return nil }
            receivedAt = Clock.unixTime
        }
    }

    /// Exactly `count` bytes; nil past `timeout` seconds.
    func bytes(_ count: Int, timeout: Double) throws -> [UInt8]? {
        let deadline = Clock.now + timeout
        while buffered.count < count {
            guard try fill(until: deadline) else { return nil }
        }
        let taken = Array(buffered[..<count])
        buffered.removeSubrange(..<count)
        return taken
    }

    /// Reads what has arrived into the buffer; false once `deadline` passed with nothing.
    private func fill(until deadline: Double) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let left = deadline - Clock.now
            guard left > 0 else { return false }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { throw BenchError.failed("\(path) closed the connection") }
            buffered += chunk[..<count]
            return true
        }
    }
}

/// sway's IPC (`sway-ipc(7)`): a message is "i3-ipc", its payload's length and its type (32-bit, native order),
/// then the payload; the reply has the same header. The benchmark sends the command `swaymsg` would, on a connection
/// kept open, so that no process is started between the clock's reading and sway's work.
final class SwayIPC {
    private let socket: StreamSocket
    private static let magic = Array("i3-ipc".utf8)

    init(path: String) throws {
        socket = try StreamSocket(path: path)
    }

    /// `RUN_COMMAND` (0): fails unless sway says every command succeeded.
    func command(_ text: String) throws {
        let reply = try message(type: 0, text)
        guard reply.contains("\"success\": true") || reply.contains("\"success\":true"),
            !reply.contains("\"success\": false") && !reply.contains("\"success\":false")
        else { throw BenchError.failed("sway refused \(text): \(reply)") }
    }

    /// The app ids of the windows sway has (`GET_TREE`, 4), and the one focused.
    func windows() throws -> (appIDs: [String], focused: String?) {
        let reply = try message(type: 4, "")
        guard let tree = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) else {
            throw BenchError.failed("sway's tree is not JSON")
        }
        var appIDs: [String] = []
        var focused: String?
        func walk(_ node: Any) {
            guard let node = node as? [String: Any] else { return }
            if let appID = node["app_id"] as? String {
                appIDs.append(appID)
                if node["focused"] as? Bool == true { focused = appID }
            }
            for key in ["nodes", "floating_nodes"] { (node[key] as? [Any])?.forEach(walk) }
        }
        walk(tree)
        return (appIDs, focused)
    }

    private func message(type: UInt32, _ payload: String) throws -> String {
        let body = Array(payload.utf8)
        var header = Self.magic
        withUnsafeBytes(of: UInt32(body.count)) { header += $0 }
        withUnsafeBytes(of: type) { header += $0 }
        try socket.send(header + body)
        guard let head = try socket.bytes(14, timeout: 10), Array(head[..<6]) == Self.magic else {
            throw BenchError.failed("sway did not answer on its IPC socket within 10 s")
        }
        let length = head[6..<10].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        guard let reply = try socket.bytes(Int(length), timeout: 10) else {
            throw BenchError.failed("sway's reply was cut short")
        }
        return String(decoding: reply, as: UTF8.self)
    }
}
