#if canImport(Glibc)
import Glibc
#endif

/// The process that wrote a message, from the `SCM_CREDENTIALS` (and, on Linux 6.5 and later, `SCM_PIDFD`)
/// the kernel attached to its bytes (SEMANTICS I4).
///
/// Unlike `SO_PEERCRED`, which names whoever called `connect`, these name the writer of these very bytes, and
/// a process cannot forge them without `CAP_SYS_ADMIN`. The pidfd names the writer's process itself, so that
/// once its pid has gone to another process the sender is known to be gone (``isRunning``).
///
/// Owns its pidfd and closes it when released. Loop-bound, like the connection that holds it.
public final class MessageSender {
    /// The writer's pid (in the server's pid namespace), uid and gid when it wrote.
    public let pid: Int32
    public let uid: UInt32
    public let gid: UInt32
    /// A pidfd of the writer, or -1 on a kernel without `SCM_PIDFD`.
    let pidfd: Int32

    init(pid: Int32, uid: UInt32, gid: UInt32, pidfd: Int32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.pidfd = pidfd
    }

    deinit {
        if pidfd >= 0 { close(pidfd) }
    }

    /// Whether the process that wrote the message still holds its pid (running, or exited and not yet reaped),
    /// so that `/proc/PID` read after this answer is that process and no other.
    ///
    /// Read from the pidfd's `/proc/self/fdinfo` entry, whose `Pid:` line turns to -1 once the process is gone.
    /// Without a pidfd (before Linux 6.5) this cannot be known and the answer is `true`: a pid reused between
    /// the message and the check then goes unnoticed.
    public var isRunning: Bool {
        guard pidfd >= 0 else { return true }
        guard let file = fopen("/proc/self/fdinfo/\(pidfd)", "r") else { return false }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("Pid:") else { continue }
            return Int32(text.dropFirst(4).trimmingWhitespace) == pid
        }
        return false
    }

    /// Whether `other` wrote as the same process: same pid, uid and gid, while this one still holds the pid
    /// (so the pid cannot have passed to another process between the two writes).
    func isSameProcess(as other: MessageSender) -> Bool {
        pid == other.pid && uid == other.uid && gid == other.gid && isRunning
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        drop { $0 == " " || $0 == "\t" }.prefix { $0 != " " && $0 != "\t" && $0 != "\n" }
    }
}
