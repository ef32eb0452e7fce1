import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// Moves the write-ahead log's pages into the database file on a connection and a thread of its own.
///
/// SQLite checkpoints by default in the commit that takes the log past 1,000 pages: that commit copies
/// every page into the database file and syncs both files before it returns, which held the daemon's one
/// event loop for 5–15 ms every few thousand session writes, and every expiry due meanwhile waited. The
/// writer's connection hands its commits' log size to ``committed(logPages:)`` instead (`sqlite3_wal_hook`,
/// which also turns the automatic checkpoint off), and past ``threshold`` pages a passive checkpoint runs
/// here. A passive checkpoint never waits for the writer nor makes it wait; once it has copied the whole log,
/// the writer's next commit starts the log again from its beginning, so the file stays small.
///
/// Durability does not change: a commit is in the log, synced as its level asks, before `apply` returns; the
/// checkpoint only copies what is already there.
final class Checkpointer: Sendable {
    /// The log size, in pages, past which a checkpoint is started.
    let threshold: Int
    /// How long after a checkpoint that left pages behind the next one runs.
    let followUpDelay: DispatchTimeInterval
    private let connection: DatabaseQueue
    /// Where checkpoints run, one at a time; internal so that tests can hold it back.
    let queue = DispatchQueue(label: "locd.store.checkpoint", qos: .utility)
    private let running = Atomic<Bool>(false)
    private let completedCount = Atomic<Int>(0)
    private let lastLogPages = Atomic<Int>(0)
    /// The log's size when the last checkpoint was started (only the writer's thread reads and writes it).
    private let startedAt = Atomic<Int>(0)

    /// Opens a second connection to the store file at `path`, for checkpoints only.
    init(path: String, threshold: Int, followUpDelay: DispatchTimeInterval = .milliseconds(250)) throws {
        self.threshold = threshold
        self.followUpDelay = followUpDelay
        var configuration = Configuration()
        configuration.label = "locd.store.checkpoint"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Checkpoints that have finished.
    var completed: Int { completedCount.load(ordering: .acquiring) }

    /// The log's size in pages after the writer's last commit.
    var logPages: Int { lastLogPages.load(ordering: .relaxed) }

    /// Routes `writer`'s commits to ``committed(logPages:)``, in place of SQLite's automatic checkpoint.
    ///
    /// The hook holds the checkpointer unretained: the store keeps it alive as long as the writer, and
    /// ``detach(from:)`` removes the hook before either goes.
    func attach(to writer: Database) {
        sqlite3_wal_hook(
            writer.sqliteConnection,
            { context, _, _, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().committed(logPages: Int(pages))
                return SQLITE_OK
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
    }

    /// Removes the hook ``attach(to:)`` set.
    func detach(from writer: Database) {
        sqlite3_wal_hook(writer.sqliteConnection, nil, nil)
    }

    /// Called on the writer's thread after each commit, with the log's size: starts a checkpoint when the log
    /// has grown by ``threshold`` pages since the last one started and none is running. Cheap: two loads,
    /// and at most one dispatch per checkpoint.
    ///
    /// Growth, not size: while commits keep coming, a passive checkpoint copies what was committed before it
    /// started and the log cannot start over, so its size stays past the threshold; checkpointing again at
    /// every commit would copy a few pages and sync both files each time.
    func committed(logPages pages: Int) {
        lastLogPages.store(pages, ordering: .relaxed)
        let started = startedAt.load(ordering: .relaxed)
        // A log smaller than at the last start has started over: all of it is new.
        let grown = pages < started ? pages : pages - started
        guard grown >= threshold,
            running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        startedAt.store(pages, ordering: .relaxed)
        queue.async { [self] in checkpoint() }
    }

    /// Runs a checkpoint; while the log holds pages committed after it started, runs another
    /// ``followUpDelay`` later, so that the end of a burst of commits is copied while the store is quiet,
    /// not at the start of the next burst, whose commits would then grow a log that cannot start over and
    /// share the machine with the copying.
    private func checkpoint() {
        // A checkpoint that fails (the disk, a lock) changes nothing stored; a later commit starts another.
        guard let result = try? connection.writeWithoutTransaction(Self.checkpoint) else {
            return running.store(false, ordering: .releasing)
        }
        completedCount.add(1, ordering: .releasing)
        guard result.checkpointedFrameCount < result.walFrameCount else {
            return running.store(false, ordering: .releasing)
        }
        queue.asyncAfter(deadline: .now() + followUpDelay) { [self] in checkpoint() }
    }

    /// A passive checkpoint on `db`. A connection opens the log only when it first reads a table, and until
    /// then SQLite takes the file for one without a log and checkpoints nothing: the read comes first.
    private static func checkpoint(_ db: Database) throws -> (walFrameCount: Int, checkpointedFrameCount: Int) {
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_schema")
        return try db.checkpoint(.passive)
    }

    /// Returns once the checkpoint running or queued, if any, has finished.
    func waitUntilIdle() {
        queue.sync {}
    }

    /// Whether a checkpoint is running or will run (a follow-up included).
    var isActive: Bool { running.load(ordering: .acquiring) }
}
