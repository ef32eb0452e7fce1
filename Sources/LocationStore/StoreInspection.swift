import Foundation

/// What start-up finds wrong with the store's files before SQLite reads them, and the damaged files set aside
/// (R9).
///
/// SQLite reads a log whose header is not valid (garbage, or cut short) as an empty log, and a database file
/// emptied to nothing as a new database: either way every record since the last checkpoint, or every record,
/// would start over without a word. So start-up looks first: a log with an invalid header is set aside (the
/// database keeps what was checkpointed); a database that is gone, empty or without locd's tables while the
/// marker `locd.sqlite.created` (written once the schema first exists) says this directory held a store is
/// set aside with its log, and a new store starts. Set aside is renamed to `<name>.damaged-<UTC time>` beside
/// the store, for salvage; the daemon logs an error naming the files.
enum StoreInspection {
    /// The marker's path for the store at `path`.
    static func markerPath(_ path: String) -> String { path + ".created" }

    /// Why the files at `path` (the database) and `path-wal` are damaged, and whether the database itself is
    /// (else only the log is), or nil if they look sound. Reads only the files' headers.
    static func damage(at path: String) -> (reason: String, database: Bool)? {
        if let header = readPrefix(path + "-wal", count: 32), !header.isEmpty, !validLogHeader(header) {
            let kind = header.count < 32 ? "cut short" : "garbage"
            return (
                "its log \(path)-wal has an invalid header (\(kind)); what it held since the last checkpoint is lost",
                false
            )
        }
        guard FileManager.default.fileExists(atPath: markerPath(path)) else { return nil }
        guard let database = readPrefix(path, count: 16) else { return ("\(path) is missing", true) }
        if database.isEmpty { return ("\(path) is empty", true) }
        return nil
    }

    /// Renames the log, and the database too if `database`, (those that exist) to `<name>.damaged-<time>`,
    /// removes the shared-memory file (derived from the log) and, with the database, the marker; returns the
    /// new names.
    static func setAside(_ path: String, database: Bool, now: Date = Date()) throws -> [String] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let stamp = formatter.string(from: now)
        var moved: [String] = []
        for name in database ? [path, path + "-wal"] : [path + "-wal"]
        where FileManager.default.fileExists(atPath: name) {
            let target = "\(name).damaged-\(stamp)"
            guard rename(name, target) == 0 else {
                throw StoreError.cannotOpen(
                    path: name,
                    reason: "cannot set the damaged file aside: \(String(cString: strerror(errno)))"
                )
            }
            moved.append(target)
        }
        unlink(path + "-shm")
        if database { unlink(markerPath(path)) }
        return moved
    }

    /// Writes the marker if it is missing; its absence only weakens the next start's checks, so failures pass.
    static func mark(_ path: String) {
        let marker = markerPath(path)
        guard !FileManager.default.fileExists(atPath: marker) else { return }
        let descriptor = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// A WAL header (sqlite.org/fileformat2.html#walformat): the magic number, version 3007000, a page size
    /// that is a power of two from 512 to 65,536, and a checksum of the first 24 bytes in the magic's byte order.
    static func validLogHeader(_ header: [UInt8]) -> Bool {
        guard header.count >= 32 else { return false }
        func word(_ offset: Int) -> UInt32 {
            header[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        let magic = word(0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683, word(4) == 3_007_000 else { return false }
        let pageSize = word(8)
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            return false
        }
        let bigEndian = magic & 1 == 1
        var s0: UInt32 = 0
        var s1: UInt32 = 0
        for offset in stride(from: 0, to: 24, by: 8) {
            var x0 = word(offset)
            var x1 = word(offset + 4)
            if !bigEndian {
                x0 = x0.byteSwapped
                x1 = x1.byteSwapped
            }
            s0 = s0 &+ x0 &+ s1
            s1 = s1 &+ x1 &+ s0
        }
        return s0 == word(24) && s1 == word(28)
    }

    /// Up to `count` bytes from the start of the file at `path`; nil if it cannot be opened.
    private static func readPrefix(_ path: String, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
        return read < 0 ? nil : Array(buffer[..<read])
    }
}
