import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A `NOTIFY_SOCKET` datagram socket, as systemd binds it, to read what a process reports to its manager.
package final class NotifySocket {
    package let path: String
    /// The folder made for the socket when no path was given; removed with it.
    private let directory: TemporaryDirectory?
    private let descriptor: Int32

    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) { self.description = description }
    }

    /// The process exited before it said what the test waited for.
    package struct SenderExited: Error, CustomStringConvertible {
        package var seen: [String]
        package var description: String { "the process exited; NOTIFY_SOCKET saw \(seen)" }
    }

    package struct Timeout: Error, CustomStringConvertible {
        package var expected: String
        package var seen: [String]
        package var description: String { "no \(expected) on NOTIFY_SOCKET; saw \(seen)" }
    }

    /// Binds the socket at `path`, or at `notify` in a fresh temporary folder.
    package init(path: String? = nil) throws {
        if let path {
            self.path = path
            directory = nil
        } else {
            let folder = try TemporaryDirectory(prefix: "locd-notify")
            self.path = folder.at("notify")
            directory = folder
        }
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: self.path.utf8)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw Failure(description: "bind \(self.path): errno \(errno)") }
    }

    deinit {
        close(descriptor)
        unlink(path)
        directory?.remove()
    }

    /// The next datagram, or `nil` when none arrives within `timeout` seconds (a message that never comes
    /// fails the test instead of hanging it).
    package func receive(timeout: Double = 5) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Reads datagrams until one has the line `line`; returns every line read on the way.
    /// - Parameter alive: checked between reads; when it turns false (the sender exited) the wait ends.
    @discardableResult
    package func waitFor(_ line: String, timeout: Double, while alive: () -> Bool = { true }) throws -> [String] {
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            // Short polls, so that a sender that exits instead of saying `line` ends the wait.
            guard let datagram = receive(timeout: 0.05) else {
                if !alive() { throw SenderExited(seen: seen) }
                continue
            }
            let lines = datagram.split(separator: "\n").map(String.init)
            seen += lines
            if lines.contains(line) { return seen }
        }
        throw Timeout(expected: line, seen: seen)
    }
}
