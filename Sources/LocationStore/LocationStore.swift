import Foundation
import GRDB
import LocationCore

/// The daemon's durable memory (SEMANTICS §10): authorization records and the global switch, kept across
/// boots, and this boot's apps, sessions and prompts, kept across daemon restarts.
///
/// One SQLite file, `locd.sqlite`, in WAL mode. Each call to ``apply(_:)`` commits one event's writes in one
/// transaction, so a crash never leaves half an event behind. Every commit survives a crash of the daemon
/// (`kill -9`) once `apply` returns: the kernel holds it. A commit that holds a decision (a record or the
/// global switch) also runs with `synchronous = FULL`, so it is on stable storage, power cut included, before
/// `apply` returns (R1); its sync covers every earlier commit too, as the log is written in order. Other
/// commits run with `synchronous = NORMAL`: a power cut may lose the last of them, but it also starts a new
/// boot, which discards that state anyway (R2).
/// The log is copied into the file by ``Checkpointer``, on a connection and a thread of its own, never by a
/// commit.
///
/// Calls are serialized on one connection, block the calling thread for the disk, and may come from any
/// thread. The daemon opens and loads the store at start-up, before it serves, on whichever of NIO's event
/// loops runs its start-up task (Swift concurrency runs on them); from then on it calls only ``apply(_:)``,
/// through its committer's thread (R10), so that no wait for the disk holds up a loop that serves.
package final class LocationStore: Sendable {
    /// The store file, `directory/locd.sqlite`.
    package let path: String
    /// The boot id that tags this boot's state (R2).
    package let bootID: String
    let queue: DatabaseQueue
    /// Checkpoints the log off the writer's thread.
    let checkpointer: Checkpointer
    /// The state directory's lock, held as long as the store is open (R6).
    private let lock: StateDirectoryLock
    /// The store's files as opened, checked before each commit (R7).
    let files: StoreFiles
    /// What start-up found damaged and set aside before starting a new store (R9), if anything; the daemon
    /// logs it as an error.
    package let damaged: DamagedStore?
    // The writer connection's own state, touched only inside `queue`'s serialized access, which is what makes
    // the unchecked access safe.
    /// Whether the connection's `synchronous` is `FULL` (else `NORMAL`), to switch it only when it changes.
    nonisolated(unsafe) private var synchronousIsFull = false
    /// The writer's statements, by ``WriteStatement`` raw value, prepared on first use; finalized in `deinit`,
    /// before the connection closes.
    nonisolated(unsafe) private var statements: [Statement?] = Array(
        repeating: nil,
        count: WriteStatement.allCases.count
    )
    /// Where ``StatementBinder`` puts a statement's text parameters while it runs.
    nonisolated(unsafe) let bindScratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)

    /// Opens (creating) `directory/locd.sqlite` in WAL mode, creating `directory` (0700) if needed.
    ///
    /// A file that cannot be opened, or is not a locd store, throws ``StoreError`` with a message that names
    /// the path and says what to do.
    /// - Parameters:
    ///   - directory: the state directory (`state-dir`, default `/var/lib/locd`).
    ///   - bootID: this boot's id, normally ``currentBootID()``; state written under another id is stale.
    ///   - busyTimeout: how long a write waits for a lock another connection holds before it fails. The
    ///     daemon commits on a thread of its own (R10), so a wait holds back only the replies that wait for
    ///     the write; past it the store reports failing and the write is retried while the daemon serves
    ///     from memory (§10).
    ///   - checkpointPages: the log's growth, in pages, past which ``Checkpointer`` copies it into the file,
    ///     once the store is quiet (at once when four times as many wait to be copied).
    ///   - checkpointQuiet: how long no commit must have come before a wanted checkpoint runs.
    package init(
        directory: String,
        bootID: String,
        busyTimeout: TimeInterval = 5,
        checkpointPages: Int = 1000,
        checkpointQuiet: Duration = .milliseconds(100)
    ) throws {
        try Self.makeDirectory(directory)
        let path = directory.hasSuffix("/") ? directory + "locd.sqlite" : directory + "/locd.sqlite"
        self.path = path
        self.bootID = bootID
        lock = try StateDirectoryLock.acquire(directory: directory)
        let found = StoreInspection.damage(at: path)
        var damage = found?.reason
        var setAside: [String] = []
        if let found { setAside = try StoreInspection.setAside(path, database: found.database) }
        var configuration = Configuration()
        configuration.label = "locd.store"
        configuration.busyMode = .timeout(busyTimeout)
        do {
            var queue = try DatabaseQueue(path: path, configuration: configuration)
            if found?.database != true, let lost = try Self.lostSchema(queue, path: path) {
                try queue.close()
                damage = [damage, lost].compactMap { $0 }.joined(separator: "; ")
                setAside += try StoreInspection.setAside(path, database: true)
                queue = try DatabaseQueue(path: path, configuration: configuration)
            }
            self.queue = queue
            try Self.open(queue, path: path)
            let files = try StoreFiles(path: path)
            let checkpointer = try Checkpointer(
                path: path,
                files: files,
                threshold: checkpointPages,
                quietPeriod: checkpointQuiet
            )
            self.files = files
            self.checkpointer = checkpointer
            try queue.writeWithoutTransaction { db in
                checkpointer.attach(to: db)
                // A log left long by an earlier run starts over empty (R5).
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        } catch {
            throw StoreError(error, path: path, operation: "open")
        }
        StoreInspection.mark(path)
        damaged = damage.map { DamagedStore(reason: $0, setAside: setAside) }
    }

    deinit {
        queue.inDatabase { db in
            statements = []
            checkpointer.detach(from: db)
        }
        bindScratch.deallocate()
    }

    /// `write`'s statement on the writer's connection `db`: call only inside `queue`'s access.
    func statement(_ write: WriteStatement, _ db: Database) throws -> Statement {
        if let prepared = statements[write.rawValue] { return prepared }
        let prepared = try db.makeStatement(sql: write.sql)
        statements[write.rawValue] = prepared
        return prepared
    }

    /// Checks that the file is a locd store (or a new, empty file), turns WAL on and migrates the schema.
    private static func open(_ queue: DatabaseQueue, path: String) throws {
        try queue.writeWithoutTransaction { db in
            try checkIdentity(db, path: path)
            // Before WAL: never touch another program's file. WAL is persistent, so this is a no-op after
            // the first start.
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode == "wal" else {
                throw StoreError.cannotOpen(
                    path: path,
                    reason: "SQLite refused WAL mode (journal mode \(mode ?? "?"))"
                )
            }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let migrator = StoreSchema.migrator
        let applied = try queue.read { try migrator.appliedIdentifiers($0) }
        let unknown = applied.subtracting(migrator.migrations).sorted()
        guard unknown.isEmpty else { throw StoreError.newerStore(path: path, unknownMigrations: unknown) }
        try migrator.migrate(queue)
    }

    /// Why the store at `path` lost its tables, if it did: it is a new, empty database while the marker says
    /// this directory held a store (R9).
    private static func lostSchema(_ queue: DatabaseQueue, path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: StoreInspection.markerPath(path)) else { return nil }
        let objects = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_schema") ?? 0 }
        return objects == 0 ? "the database has no tables, though \(path) held a store" : nil
    }

    /// A locd store carries ``StoreSchema/applicationID``; a new file is empty; anything else is not ours.
    private static func checkIdentity(_ db: Database, path: String) throws {
        let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        if applicationID == StoreSchema.applicationID { return }
        guard applicationID == 0 else {
            let hex = String(UInt32(bitPattern: applicationID), radix: 16)
            throw StoreError.notAStore(path: path, reason: "another program's SQLite database, application id 0x\(hex)")
        }
        let objects = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_schema") ?? 0
        guard objects == 0 else {
            throw StoreError.notAStore(
                path: path,
                reason: "a SQLite database with \(objects) tables or indexes of another program"
            )
        }
    }

    /// Reads everything; state (apps, sessions, prompts) tagged with another boot id is deleted first (R2).
    ///
    /// Records, the global switch and monitored conditions are kept across boots. Apps are in app id order,
    /// sessions and prompts in id order, conditions in the order they were added, as ``LocationCore/snapshot``
    /// lists them.
    package func load() throws -> CoreSnapshot {
        try transaction(durable: false, operation: "load") { db in
            for table in ["apps", "sessions", "prompts"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE boot_id <> ?", arguments: [bootID])
            }
            return try readSnapshot(db)
        }
    }

    /// Applies one event's writes in one transaction.
    ///
    /// If any write is a decision (``Persist/isDecision``: a record or the global switch) the commit is durable
    /// before this returns (R1). Sessions, apps and prompts are stored tagged with the boot id. Writing the
    /// same value twice, or removing what is absent, changes nothing.
    package func apply(_ writes: [Persist]) throws {
        guard !writes.isEmpty else { return }
        try transaction(durable: writes.contains { $0.isDecision }, operation: "write to") { db in
            for write in writes { try apply(write, db) }
        }
    }

    /// Applies several events' writes, in order, in one transaction (group commit).
    ///
    /// Durable before returning if any event holds a decision; all events commit or none does.
    package func apply(batch: [[Persist]]) throws {
        guard batch.contains(where: { !$0.isEmpty }) else { return }
        let durable = batch.contains { writes in writes.contains { $0.isDecision } }
        try transaction(durable: durable, operation: "write to") { db in
            for writes in batch {
                for write in writes { try apply(write, db) }
            }
        }
    }

    /// A number that increases at every daemon start (persisted), used as the id epoch so ids are never reused.
    ///
    /// The first call on a new store returns 1. The new value is durable before it is returned.
    package func nextEpoch() throws -> UInt32 {
        try transaction(durable: true, operation: "update the epoch in") { db in
            let current = try Int64.fetchOne(db, sql: "SELECT epoch FROM settings WHERE id = 1") ?? 0
            // 2^32 - 1 starts would take a restart a second for 136 years; wrap rather than trap all the same.
            let next: Int64 = current >= 1 && current < Int64(UInt32.max) ? current + 1 : 1
            try db.execute(sql: "UPDATE settings SET epoch = ? WHERE id = 1", arguments: [next])
            return UInt32(next)
        }
    }

    /// `/proc/sys/kernel/random/boot_id`, trimmed.
    package static func currentBootID() throws -> String {
        try bootID(at: "/proc/sys/kernel/random/boot_id")
    }

    static func bootID(at path: String) throws -> String {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw StoreError.bootIDUnavailable(path: path, reason: "\(error.localizedDescription)")
        }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !id.isEmpty else { throw StoreError.bootIDUnavailable(path: path, reason: "the file is empty") }
        return id
    }

    // MARK: Transactions

    /// Runs `body` in one `IMMEDIATE` transaction, with `synchronous` set for its commit first.
    ///
    /// SQLite refuses to change `synchronous` inside a transaction, and a prepared `PRAGMA synchronous` takes
    /// effect when prepared, not when run, so the pragma is executed afresh, and only when the level changes.
    /// `BEGIN` and `COMMIT` are prepared once (``WriteStatement``): GRDB's `inTransaction` parses them at every
    /// call, which cost more than the event's writes.
    private func transaction<T>(durable: Bool, operation: String, _ body: (Database) throws -> T) throws -> T {
        checkpointer.waitForRestart()
        do {
            return try queue.writeWithoutTransaction { db in
                try files.check()
                if checkpointer.logPages >= checkpointer.hardLimit {
                    // The checkpointer's thread was not given the time to start the log over: a commit that
                    // waits now is better than a log without bound (R5). The next commit starts it over.
                    _ = try? db.checkpoint(.restart)
                }
                if synchronousIsFull != durable {
                    try db.execute(sql: durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
                    synchronousIsFull = durable
                }
                try run(.begin, db)
                do {
                    let result = try body(db)
                    try run(.commit, db)
                    return result
                } catch {
                    // SQLite has already rolled back after some failures (a full disk, an I/O error).
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                    throw error
                }
            }
        } catch {
            throw StoreError(error, path: path, operation: operation)
        }
    }

    // MARK: The directory

    /// Creates `directory` and any missing parents with mode 0700; an existing directory is left as it is.
    static func makeDirectory(_ directory: String) throws {
        func fail(_ reason: String) -> StoreError { .directoryUnavailable(path: directory, reason: reason) }
        var prefix = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += prefix.isEmpty || prefix.hasSuffix("/") ? String(component) : "/" + component
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: prefix, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else { throw fail("\(prefix) exists and is not a directory") }
                continue
            }
            if mkdir(prefix, 0o700) != 0 {
                let code = errno
                guard code == EEXIST else { throw fail("mkdir \(prefix): \(String(cString: strerror(code)))") }
            }
        }
    }
}

extension StoreError {
    /// Wraps what GRDB or SQLite threw while the store did `operation`; a ``StoreError`` passes unchanged.
    init(_ error: any Error, path: String, operation: String) {
        if let error = error as? StoreError {
            self = error
            return
        }
        guard let error = error as? DatabaseError else {
            self = .failed(path: path, operation: operation, reason: "\(error)")
            return
        }
        let reason = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode {
        case .SQLITE_NOTADB: self = .notAStore(path: path, reason: reason)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH: self = .cannotOpen(path: path, reason: reason)
        case .SQLITE_CORRUPT: self = .damaged(path: path, reason: reason)
        default: self = .failed(path: path, operation: operation, reason: reason)
        }
    }
}
