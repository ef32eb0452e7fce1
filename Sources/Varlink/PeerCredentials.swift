#if canImport(Glibc)
import Glibc
#endif

/// The peer of a Unix socket connection as the kernel recorded it when the peer called `connect`:
/// `SO_PEERCRED` and `SO_PEERGROUPS`.
///
/// These are fixed for the life of the connection: nothing the peer does later (exec, exit, its pid going to
/// another process) changes them, which is why privilege is decided from them (SEMANTICS I3).
public struct PeerCredentials: Sendable, Hashable {
    /// The pid that connected; it may since have exited or exec'd: never a proof of who speaks now.
    public var pid: Int32
    /// The effective uid and gid at connect time.
    public var uid: UInt32
    public var gid: UInt32
    /// The supplementary groups at connect time (`SO_PEERGROUPS`).
    public var groups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// Reads `SO_PEERCRED` and `SO_PEERGROUPS` of a connected Unix socket; `nil` if the kernel gives no
    /// `SO_PEERCRED`. A kernel without `SO_PEERGROUPS` (before 4.13) gives no supplementary groups.
    static func read(descriptor: Int32) -> PeerCredentials? {
        var raw = RawPeerCredentials()
        var length = socklen_t(MemoryLayout<RawPeerCredentials>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &raw, &length) == 0 else { return nil }
        return PeerCredentials(pid: raw.pid, uid: raw.uid, gid: raw.gid, groups: groups(descriptor: descriptor))
    }

    /// `SO_PEERGROUPS`: a buffer of gids; too small a buffer fails with `ERANGE` and says the size it needs.
    private static func groups(descriptor: Int32) -> [UInt32] {
        var groups = [UInt32](repeating: 0, count: 64)
        for _ in 0..<2 {
            var length = socklen_t(groups.count * MemoryLayout<UInt32>.size)
            if getsockopt(descriptor, SOL_SOCKET, SocketConstants.peerGroups, &groups, &length) == 0 {
                return Array(groups.prefix(Int(length) / MemoryLayout<UInt32>.size))
            }
            guard errno == ERANGE, Int(length) > groups.count * MemoryLayout<UInt32>.size else { return [] }
            groups = [UInt32](repeating: 0, count: Int(length) / MemoryLayout<UInt32>.size)
        }
        return []
    }
}

/// `struct ucred` of `<sys/socket.h>` (hidden behind `_GNU_SOURCE` in Glibc's module): three 32-bit fields.
struct RawPeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// Linux socket constants that Swift's Glibc module leaves out (`<asm-generic/socket.h>`, `<sys/socket.h>`).
enum SocketConstants {
    static let passCredentials: Int32 = 16  // SO_PASSCRED
    static let cookie: Int32 = 57  // SO_COOKIE
    static let peerGroups: Int32 = 59  // SO_PEERGROUPS
    static let passPidfd: Int32 = 76  // SO_PASSPIDFD, Linux 6.5
    static let rights: Int32 = 1  // SCM_RIGHTS
    static let credentials: Int32 = 2  // SCM_CREDENTIALS
    static let pidfd: Int32 = 4  // SCM_PIDFD, Linux 6.5
    static let dontWait: Int32 = 0x40  // MSG_DONTWAIT
    static let controlCloseOnExec: Int32 = 0x4000_0000  // MSG_CMSG_CLOEXEC

    /// Whether this kernel knows `SO_PASSPIDFD`: a listener asks for it only then, since setting an unknown
    /// option fails and would fail the bind.
    static let pidfdsSupported: Bool = {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        var on: Int32 = 1
        return setsockopt(probe, SOL_SOCKET, passPidfd, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
    }()
}
