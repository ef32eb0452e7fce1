#if canImport(Glibc)
import Glibc
#endif

/// Whether a process listens on a Unix socket path, found by connecting to it: how a server tells a live socket,
/// which it must not take over, from a stale file that a stopped server left (SEMANTICS R14).
enum ListenerProbe {
    enum Finding: Equatable {
        /// Nothing is at the path (it went between a look and the probe).
        case nothing
        /// A socket file that nobody listens on: the kernel refused the connection.
        case stale
        /// A process listens: it accepted the connection, or its queue is full. The credentials are those the
        /// listener had when it called `listen` (`SO_PEERCRED`), when the connection was made.
        case live(PeerCredentials?)
        /// The probe could not tell (no permission to connect, say): the errno.
        case unknown(Int32)
    }

    /// Connects to `path` without blocking, and closes the connection at once.
    static func probe(_ path: String) -> Finding {
        let client: VarlinkClient
        do {
            client = try VarlinkClient(path: path, timeout: 1, nonBlocking: true)
        } catch VarlinkClient.ClientError.connect(_, let code) {
            switch code {
            case ENOENT: return .nothing
            case ECONNREFUSED: return .stale
            case EAGAIN: return .live(nil)
            default: return .unknown(code)
            }
        } catch {
            return .unknown(EIO)
        }
        let descriptor = client.releaseDescriptor()
        defer { close(descriptor) }
        return .live(PeerCredentials.read(descriptor: descriptor))
    }
}
