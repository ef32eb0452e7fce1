import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on the state directory, held for the life of the store (R6).
///
/// `flock` on `directory/lock`, taken before the store file is opened: a second locd on the same directory
/// would otherwise open the same store, take over the socket, and each would overwrite the other's decisions.
/// The lock belongs to the open file description, so it goes with the process (a crash included). Stores of
/// one process on one directory share it (``acquire(directory:)``): the tests open a second connection that
/// way, and a process cannot race itself. The file holds the holder's pid, for the message.
final class StateDirectoryLock: Sendable {
    /// The locks this process holds, by the lock file's path, while a store uses them.
    private static let held = Mutex<[String: Holder]>([:])

    private struct Holder {
        weak var lock: StateDirectoryLock?
    }

    /// This process's lock on `directory`, taken if no store of the process holds it yet.
    static func acquire(directory: String) throws -> StateDirectoryLock {
        let path = lockPath(directory)
        return try held.withLock { held in
            if let lock = held[path]?.lock { return lock }
            let lock = try StateDirectoryLock(path: path)
            held[path] = Holder(lock: lock)
            return lock
        }
    }

    private static func lockPath(_ directory: String) -> String {
        let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        guard let resolved = realpath(trimmed, nil) else { return trimmed + "/lock" }
        defer { free(resolved) }
        return String(cString: resolved) + "/lock"
    }

    /// `directory/lock`.
    let path: String
    private let descriptor: Int32

    /// Takes the lock, or throws ``StoreError/inUse(path:holder:)`` at once if another holds it.
    private init(path: String) throws {
        self.path = path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw StoreError.cannotOpen(path: path, reason: "open: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.readHolder(descriptor)
            close(descriptor)
            guard code == EWOULDBLOCK else {
                throw StoreError.cannotOpen(path: path, reason: "flock: \(String(cString: strerror(code)))")
            }
            throw StoreError.inUse(path: path, holder: holder)
        }
        self.descriptor = descriptor
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
    }

    deinit {
        // Unlocked before it is closed: a child forked meanwhile holds a copy of the descriptor until it execs
        // (O_CLOEXEC), and the lock belongs to the open file description the copy shares, so closing alone would
        // leave the directory locked until then, and a store opened again at once would be refused.
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// The pid the holder wrote, as text; empty if the file says nothing readable.
    private static func readHolder(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return "" }
        let digits = buffer[..<count].prefix { $0 >= 0x30 && $0 <= 0x39 }
        return String(decoding: digits, as: UTF8.self)
    }
}
