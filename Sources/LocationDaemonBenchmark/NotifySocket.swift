import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A `NOTIFY_SOCKET` datagram socket, as systemd binds it: how the benchmark learns, and times, the
/// daemon's `READY=1`.
final class NotifySocket {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        unlink(path)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError.system("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw BenchError.system("bind \(path)", errno) }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Reads datagrams until one has the line `line`; returns that datagram's lines and when it arrived.
    /// - Parameter alive: checked between short polls, so that a daemon that exits ends the wait.
    func waitFor(_ line: String, timeout: Double, while alive: () -> Bool) throws -> (lines: [String], at: Double) {
        let deadline = Clock.now + timeout
        var seen: [String] = []
        while Clock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 20) > 0 else {
                if !alive() { throw BenchError.failed("locd exited before \(line); it said \(seen)") }
                continue
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            let at = Clock.now
            guard count > 0 else { continue }
            let lines = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").map(String.init)
            seen += lines
            if lines.contains(line) { return (lines, at) }
        }
        throw BenchError.failed("no \(line) from locd within \(timeout) s; it said \(seen)")
    }
}
