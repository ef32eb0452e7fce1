#if canImport(Glibc)
import Glibc
#endif

/// A server is already listening on the socket path a server was to bind: it is left alone, never replaced
/// (SEMANTICS R14).
public struct SocketInUse: Error, CustomStringConvertible, Sendable {
    /// The socket path.
    public var path: String
    /// The listener's pid, when the kernel said (`SO_PEERCRED` of a connection to it).
    public var pid: Int32?
    /// The listener's command name (`/proc/PID/comm`), when it could be read.
    public var command: String?

    public init(path: String, pid: Int32?, command: String?) {
        self.path = path
        self.pid = pid
        self.command = command
    }

    /// The listener as a person would name it: "locd (pid 4242)", "pid 4242", or "another process".
    public var listener: String {
        switch (command, pid) {
        case let (command?, pid?): "\(command) (pid \(pid))"
        case let (nil, pid?): "pid \(pid)"
        default: "another process"
        }
    }

    public var description: String {
        "\(listener) already listens on \(path); it is left alone"
    }

    /// The finding of a live listener: its pid and the name `/proc/PID/comm` gives it.
    init(path: String, credentials: PeerCredentials?) {
        let pid = credentials.map(\.pid).flatMap { $0 > 0 ? $0 : nil }
        self.init(path: path, pid: pid, command: pid.flatMap(Self.command(of:)))
    }

    private static func command(of pid: Int32) -> String? {
        let descriptor = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        // One line, ending in a newline.
        return String(decoding: buffer.prefix(count), as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
}
