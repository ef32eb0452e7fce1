#if canImport(Glibc)
import Glibc
#endif

/// A datagram socket bound in a temporary folder, standing in for systemd's `NOTIFY_SOCKET`.
final class NotifySocket {
    let path: String
    private let directory: String
    private let descriptor: Int32

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
        var template = Array("/tmp/locd-notify-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp: errno \(errno)") }
        directory = String(cString: made)
        path = directory + "/notify"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }

        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw Failure(description: "bind \(path): errno \(errno)") }

        // A message that never comes fails the test after 5 s instead of hanging it.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram, or `nil` when none arrived in time.
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    deinit {
        close(descriptor)
        unlink(path)
        rmdir(directory)
    }
}
