import CPidfd

#if canImport(Glibc)
import Glibc
#endif

/// What the kernel says about a process through `/proc`: its executable, its real uid, and the pid a pidfd
/// names. Every answer is read fresh; the caller decides what a pid still means (see ``pid(ofPidfd:)``).
public struct ProcessFacts: Sendable {
    /// Where `/proc` is; tests point it at a tree of their own.
    public var procRoot: String

    public init(procRoot: String = "/proc") {
        self.procRoot = procRoot
    }

    /// The target of `/proc/PID/exe`: the file the process executes (for a script, its interpreter), with
    /// " (deleted)" at the end if that file has been removed since. `nil` when it cannot be read (no such
    /// process, a kernel thread, or no right to look at it).
    ///
    /// The link's text is the path in the process's own mount namespace, which any user may build (a user and mount
    /// namespace whose root holds a program of theirs at `/usr/bin/gnome-shell`). So the path counts only when it
    /// names, in this process's view, the very file the process runs (the same device and inode as the file
    /// `/proc/PID/exe` leads to); otherwise the path comes back with " (not the file at that path)" at the end, which
    /// matches no executable a manifest or a broker names.
    public func executable(of pid: Int32) -> String? {
        guard pid > 0, let path = ProcFiles.link("\(procRoot)/\(pid)/exe") else { return nil }
        if path.hasSuffix(Self.deleted) { return path }
        var running = stat()
        guard stat("\(procRoot)/\(pid)/exe", &running) == 0 else { return path }
        var named = stat()
        guard stat(path, &named) == 0, named.st_dev == running.st_dev, named.st_ino == running.st_ino else {
            return path + Self.notThatFile
        }
        return path
    }

    static let deleted = " (deleted)"
    /// Marks a path that, in this process's view, names another file than the one the process runs.
    public static let notThatFile = " (not the file at that path)"

    /// The real uid of the process, the first field of `Uid:` in `/proc/PID/status`: the user it runs for,
    /// which a setuid executable does not change.
    public func realUID(of pid: Int32) -> UInt32? {
        guard pid > 0, let status = ProcFiles.text("\(procRoot)/\(pid)/status", limit: 65_536) else { return nil }
        return Self.field("Uid:", in: status).flatMap { UInt32($0) }
    }

    /// The real and effective uids of the process, the first two fields of `Uid:` in `/proc/PID/status`.
    public func uids(of pid: Int32) -> (real: UInt32, effective: UInt32)? {
        guard pid > 0, let status = ProcFiles.text("\(procRoot)/\(pid)/status", limit: 65_536),
            let line = Self.line("Uid:", in: status)
        else { return nil }
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 2, let real = UInt32(fields[0]), let effective = UInt32(fields[1]) else { return nil }
        return (real, effective)
    }

    /// When the process started, in clock ticks (`sysconf(_SC_CLK_TCK)`) since boot: field 22 of `/proc/PID/stat`,
    /// read after the last `)`, since the process's name before it is any bytes it chose, spaces and parentheses
    /// included.
    public func startTicks(of pid: Int32) -> UInt64? {
        guard pid > 0, let stat = ProcFiles.bytes(directory: "\(procRoot)/\(pid)", name: "stat", limit: 65_536),
            let close = stat.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        // After ") ": field 3 (state) onwards; field 22 is the 20th of them.
        let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 20 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }

    /// Now, in the clock ticks of ``startTicks(of:)`` since boot (`CLOCK_BOOTTIME`, which counts suspend as the
    /// kernel's process start times do), rounded down as the kernel rounds them.
    public static func ticksSinceBoot() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        let perSecond = UInt64(max(sysconf(Int32(_SC_CLK_TCK)), 1))
        return UInt64(now.tv_sec) * perSecond + UInt64(now.tv_nsec) * perSecond / 1_000_000_000
    }

    /// The pid the pidfd `descriptor` names, from its `/proc/self/fdinfo` entry: the pid (in the reader's pid
    /// namespace) while that process holds it, `-1` once it has exited and been reaped (so the pid may be
    /// another process's), `nil` when the descriptor is not a pidfd (no `Pid:` line) or cannot be read.
    ///
    /// A pid read from `/proc/PID` between two answers equal to that pid was that process's and no other's.
    public func pid(ofPidfd descriptor: Int32) -> Int32? {
        guard descriptor >= 0,
            let info = ProcFiles.text("\(procRoot)/self/fdinfo/\(descriptor)", limit: 65_536)
        else { return nil }
        return Self.field("Pid:", in: info).flatMap { Int32($0) }
    }

    /// The first whitespace-separated word after `name` on the first line that starts with it; `nil` if there is no
    /// such line or nothing follows `name` on it. A scan of the bytes: every brokered `Hello` reads two of these files.
    static func field(_ name: String, in text: String) -> Substring? {
        guard let rest = line(name, in: text) else { return nil }
        let word = rest.utf8.prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        return word.isEmpty ? nil : text[word.startIndex..<word.endIndex]
    }

    /// What follows `name` (and the blanks after it) on the first line that starts with it; `nil` if there is none.
    static func line(_ name: String, in text: String) -> Substring? {
        let bytes = text.utf8
        let key = name.utf8
        let (newline, space, tab) = (UInt8(ascii: "\n"), UInt8(ascii: " "), UInt8(ascii: "\t"))
        var lineStart = bytes.startIndex
        while lineStart < bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex(of: newline) ?? bytes.endIndex
            let line = bytes[lineStart..<lineEnd]
            if line.starts(with: key) {
                let rest = line.dropFirst(key.count).drop { $0 == space || $0 == tab }
                return text[rest.startIndex..<rest.endIndex]
            }
            lineStart = lineEnd == bytes.endIndex ? lineEnd : bytes.index(after: lineEnd)
        }
        return nil
    }
}

extension ProcessFacts {
    /// A new pidfd of `pid` (close-on-exec), which the caller owns and closes; `nil` with `errno` set when the
    /// process does not exist or the kernel has no `pidfd_open` (before Linux 5.3).
    ///
    /// Made from a pid, it names whatever process holds the pid now: open it while the pid is known to be the
    /// process meant (from a pidfd or credentials the kernel attached to its message), or check after.
    public static func openPidfd(_ pid: Int32) -> Int32? {
        guard pid > 0 else { return nil }
        let descriptor = process_identity_pidfd_open(pid)
        return descriptor >= 0 ? descriptor : nil
    }
}
