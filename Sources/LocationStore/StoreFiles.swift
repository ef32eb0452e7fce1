#if canImport(Glibc)
import Glibc
#endif

/// The store's files as locd opened them, checked before each commit and each checkpoint (R7).
///
/// SQLite keeps writing to a file that was deleted under it (the state directory removed, the file replaced
/// by a rename): every commit succeeds, every decision is acknowledged, and all of it is gone at the next
/// start. And a `-shm` file made immutable (`chattr +i`) kills the process with `SIGBUS` the next time SQLite
/// writes to its mapping of it. So before each commit the store asks the kernel, on descriptors of its own,
/// whether the database and its log are still linked and whether the shared-memory file still accepts
/// writes; if not, the commit fails like a full disk, and the daemon holds every acknowledgement (R1).
///
/// The cost is three system calls on descriptors already open (`fstat` twice, `ioctl(FS_IOC_GETFLAGS)`
/// once), about a microsecond, against a commit's tens: cheaper than a timer, which would leave a window in
/// which a decision is acknowledged after the file went.
final class StoreFiles: Sendable {
    private let database: Int32
    private let log: Int32
    private let sharedMemory: Int32
    private let path: String

    /// Opens `path`, `path-wal` and `path-shm`, which SQLite has opened already, read-only.
    init(path: String) throws {
        self.path = path
        func openFile(_ name: String) throws -> Int32 {
            let descriptor = open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else {
                throw StoreError.cannotOpen(path: name, reason: "open: \(String(cString: strerror(errno)))")
            }
            return descriptor
        }
        database = try openFile(path)
        do {
            log = try openFile(path + "-wal")
        } catch {
            close(database)
            throw error
        }
        do {
            sharedMemory = try openFile(path + "-shm")
        } catch {
            close(database)
            close(log)
            throw error
        }
    }

    deinit {
        close(database)
        close(log)
        close(sharedMemory)
    }

    /// Throws ``StoreError/filesChanged(path:reason:)`` if the database or its log is no longer linked, or if
    /// the shared-memory file was made immutable or append-only.
    func check() throws {
        var status = stat()
        if fstat(database, &status) == 0, status.st_nlink == 0 {
            throw StoreError.filesChanged(path: path, reason: "the file was deleted or replaced while locd ran")
        }
        if fstat(log, &status) == 0, status.st_nlink == 0 {
            throw StoreError.filesChanged(
                path: path,
                reason: "its log \(path)-wal was deleted or replaced while locd ran"
            )
        }
        var flags: Int = 0
        if ioctl(sharedMemory, Self.getFlags, &flags) == 0, flags & Self.unwritable != 0 {
            throw StoreError.filesChanged(
                path: path,
                reason: "its shared memory \(path)-shm was made immutable or append-only (chattr)"
            )
        }
    }

    /// `FS_IOC_GETFLAGS`, `_IOR('f', 1, long)`.
    private static let getFlags: UInt = 0x8008_6601
    /// `FS_IMMUTABLE_FL | FS_APPEND_FL`.
    private static let unwritable = 0x10 | 0x20
}
