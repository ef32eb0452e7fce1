/// Why the store cannot be opened, read or written; every message names the file and says what to do.
///
/// The daemon logs ``description`` and stops at start-up (R4), or, for a failed write, reports the
/// diagnostic `persistenceUnavailable` and refuses the call that needed the write (R1).
package enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The state directory does not exist and cannot be created.
    case directoryUnavailable(path: String, reason: String)
    /// The store file cannot be opened at all (permissions, a directory in its place, a missing parent).
    case cannotOpen(path: String, reason: String)
    /// The file is not a SQLite database, or is another program's database.
    case notAStore(path: String, reason: String)
    /// SQLite reports the file as damaged.
    case damaged(path: String, reason: String)
    /// A newer locd has migrated the store past the schema this one knows.
    case newerStore(path: String, unknownMigrations: [String])
    /// A stored value this locd cannot read back.
    case unreadable(path: String, reason: String)
    /// A read or write failed: disk full, I/O error, or the file locked by another process.
    case failed(path: String, operation: String, reason: String)
    /// The kernel's boot id cannot be read.
    case bootIDUnavailable(path: String, reason: String)
    /// Another process (another locd) holds the state directory's lock, `path`; `holder` is its pid, or empty.
    case inUse(path: String, holder: String)
    /// The store's files changed under the running daemon: deleted, replaced, or made unwritable (R7).
    case filesChanged(path: String, reason: String)

    /// The file or directory the error is about.
    package var path: String {
        switch self {
        case .directoryUnavailable(let path, _), .cannotOpen(let path, _), .notAStore(let path, _),
            .damaged(let path, _), .newerStore(let path, _), .unreadable(let path, _), .failed(let path, _, _),
            .bootIDUnavailable(let path, _), .inUse(let path, _), .filesChanged(let path, _):
            path
        }
    }

    package var description: String {
        switch self {
        case .directoryUnavailable(let path, let reason):
            "cannot create the state directory \(path): \(reason); create it (mode 0700, owned by the user locd "
                + "runs as) or set state-dir (--state-dir) to a writable directory"
        case .cannotOpen(let path, let reason):
            "cannot open the store \(path): \(reason); make the file and its directory readable and writable by "
                + "the user locd runs as, or set state-dir (--state-dir) to another directory"
        case .notAStore(let path, let reason):
            "\(path) is not a locd store (\(reason)); move it aside and locd creates a new store at the next "
                + "start (authorization records start over), or set state-dir (--state-dir) to another directory"
        case .damaged(let path, let reason):
            "the store \(path) is damaged (\(reason)); stop locd, move the file aside with its -wal and -shm "
                + "files, salvage records with `sqlite3 \(path) .recover` if needed, and start locd again"
        case .newerStore(let path, let unknownMigrations):
            "the store \(path) was written by a newer locd (schema \(unknownMigrations.joined(separator: ", ")) "
                + "is unknown here); run that newer locd, or move the file aside to start over"
        case .unreadable(let path, let reason):
            "the store \(path) holds a value this locd cannot read (\(reason)); run the locd that wrote it, or "
                + "move the file aside to start over"
        case .failed(let path, let operation, let reason):
            "cannot \(operation) the store \(path): \(reason); check free space and permissions, and that no "
                + "other locd uses the same state-dir"
        case .bootIDUnavailable(let path, let reason):
            "cannot read the boot id from \(path): \(reason); locd needs procfs mounted at /proc"
        case .inUse(let path, let holder):
            "another locd\(holder.isEmpty ? "" : " (pid \(holder))") holds the state directory's lock \(path); "
                + "stop it first, or give this one another state-dir (--state-dir) and socket (--socket)"
        case .filesChanged(let path, let reason):
            "the store \(path) cannot be trusted: \(reason); locd serves from memory and acknowledges no "
                + "decision until it is restarted, which starts a new store (restore the state directory from a "
                + "backup first to keep earlier records)"
        }
    }
}
