import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Moves the write-ahead log's pages into the database file on a connection and a thread of its own, once
/// the store is quiet.
///
/// SQLite checkpoints by default in the commit that takes the log past 1,000 pages: that commit copies
/// every page into the database file and syncs both files before it returns, which held the daemon's one
/// event loop for 5–15 ms every few thousand session writes, and every expiry due meanwhile waited. The
/// writer's connection hands its commits' log size to ``committed(logPages:)`` instead (`sqlite3_wal_hook`,
/// which also turns the automatic checkpoint off). Once the log has grown by ``threshold`` pages, a passive
/// checkpoint runs here when no commit has come for ``quietPeriod``, or at once when the log holds ``limit``
/// pages. A passive checkpoint never waits for the writer nor makes it wait, but copying and syncing
/// alongside a burst of commits slowed them (a thousand apps' sessions expiring, `locd-bench`). While commits
/// keep coming the log cannot start over, as each checkpoint copies only what was committed before it began;
/// once they stop, the log is copied whole and the writer's next commit starts it again from its beginning.
///
/// The log stays bounded under any load (R5). Once the log holds ``limit`` pages, the checkpoint here is a
/// `RESTART` one: it holds the writer back at its next transaction (``waitForRestart()``; polling for SQLite's
/// write lock alone, it starved behind a writer that took the lock again as soon as it let it go), copies the
/// log and syncs the database file, and the writer's next commit starts the log from its beginning. The
/// writer waits a millisecond or so on a disk, once per ``limit`` pages written: without it, clients creating
/// and ending sessions without pause grew the log by 50 MB a second, as no passive checkpoint ever caught up
/// with the writer and the log never started over. Should this thread not come round in time, the writer
/// starts the log over itself before a commit once it holds ``hardLimit`` pages. The log's file keeps its
/// largest size, under ``hardLimit`` pages (24 MiB), and is reused rather than cut back: cutting it in the
/// commit that starts the log over (`journal_size_limit`) made that commit, and the deadlines behind it,
/// late. Start-up cuts back a log an earlier run left long (`wal_checkpoint(TRUNCATE)`).
///
/// The cost is the writer held once per ``limit`` pages for the copy and a sync: a millisecond or so under
/// churn, where the log holds few distinct pages, but more in a burst that touches thousands of pages
/// (100,000 sessions expiring at once, `locd-bench --only deadlines`), while the writer is the event loop:
/// there, on a loaded machine, lateness p99 went from 14–21 ms to 33–393 ms. Copying alongside the commits
/// first, then holding the writer only for the rest, did no better there (96 and 232 ms) and let the log
/// outgrow the limit while it synced.
///
/// Durability does not change: a commit is in the log, synced as its level asks, before `apply` returns; the
/// checkpoint only copies what is already there.
final class Checkpointer: Sendable {
    /// The log's growth, in pages, past which a checkpoint is wanted.
    let threshold: Int
    /// The log's size in pages at which a checkpoint runs without waiting for a quiet moment, and starts the
    /// log over (R5):
    /// four times ``threshold``, 16 MiB with SQLite's 4 KiB pages by default.
    var limit: Int { threshold * 4 }
    /// The log's size in pages at which the writer starts it over itself, before its next commit, if the
    /// checkpointer's thread has not come round to it: half again ``limit``, the log's hard bound (R5).
    var hardLimit: Int { limit * 3 / 2 }
    /// How long no commit must have come before a wanted checkpoint runs.
    let quietPeriod: Duration
    private let connection: DatabaseQueue
    /// The store's files, checked before each checkpoint, as before each commit (R7).
    private let files: StoreFiles
    /// Where checkpoints run, one at a time; internal so that tests can hold it back.
    let queue = DispatchQueue(label: "locd.store.checkpoint", qos: .utility)
    /// A checkpoint is wanted, waiting for a quiet moment, or running; `idle` is entered while it is.
    private let running = Atomic<Bool>(false)
    private let idle = DispatchGroup()
    private let completedCount = Atomic<Int>(0)
    private let restartCount = Atomic<Int>(0)
    /// A `RESTART` checkpoint is under way, holding ``gate``: the writer waits at its next transaction.
    private let restartPending = Atomic<Bool>(false)
    private let gate = Mutex<Void>(())
    private let lastLogPages = Atomic<Int>(0)
    /// When the writer last committed (`CLOCK_MONOTONIC`, nanoseconds).
    private let lastCommit = Atomic<Int64>(0)
    /// The log's size when the last checkpoint was wanted (only the writer's thread reads and writes it).
    private let startedAt = Atomic<Int>(0)
    /// The longest a waiting checkpoint goes without looking at the log's size again.
    private static let recheck = Duration.milliseconds(10)

    /// Opens a second connection to the store file at `path`, for checkpoints only.
    init(path: String, files: StoreFiles, threshold: Int, quietPeriod: Duration = .milliseconds(100)) throws {
        self.threshold = threshold
        self.quietPeriod = quietPeriod
        self.files = files
        var configuration = Configuration()
        configuration.label = "locd.store.checkpoint"
        // A `RESTART` checkpoint waits for the writer's commit under way, tens of microseconds.
        configuration.busyMode = .timeout(2)
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Checkpoints that have finished.
    var completed: Int { completedCount.load(ordering: .acquiring) }

    /// `RESTART` checkpoints that have finished: the log was at ``limit`` pages.
    var restarts: Int { restartCount.load(ordering: .relaxed) }

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

    /// Called on the writer's thread after each commit, with the log's size: wants a checkpoint when the log
    /// has grown by ``threshold`` pages since the last one was wanted and none is under way. Cheap: a clock
    /// read, a few atomics, and at most one dispatch per checkpoint.
    ///
    /// Growth, not size: while commits keep coming, a passive checkpoint copies what was committed before it
    /// started and the log cannot start over, so its size stays past the threshold; checkpointing again at
    /// every commit would copy a few pages and sync both files each time.
    func committed(logPages pages: Int) {
        lastCommit.store(Self.monotonicNow(), ordering: .relaxed)
        lastLogPages.store(pages, ordering: .relaxed)
        let started = startedAt.load(ordering: .relaxed)
        // A log smaller than at the last start has started over: all of it is new.
        let grown = pages < started ? pages : pages - started
        guard grown >= threshold,
            running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        idle.enter()
        startedAt.store(pages, ordering: .relaxed)
        queue.async { [self] in checkpointWhenQuiet() }
    }

    /// Runs a checkpoint once no commit has come for ``quietPeriod``, or at once when the log holds ``limit``
    /// pages; until then looks again when the quiet period would end, and at least every ``recheck``, for the
    /// limit. A timer only wakes this: the decision is taken from the clock and the log as they are then.
    ///
    /// The log's whole size, not what waits to be copied, is measured against the limit: what was copied but
    /// not yet started over still fills the file, and the checkpoint at the limit starts it over (R5).
    private func checkpointWhenQuiet() {
        let quietFor = Duration.nanoseconds(Self.monotonicNow() - lastCommit.load(ordering: .relaxed))
        guard quietFor >= quietPeriod || logPages >= limit else {
            let wait = min(quietPeriod - quietFor, Self.recheck)
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(wait.nanoseconds))) { [weak self] in
                self?.checkpointWhenQuiet()
            }
            return
        }
        checkpoint()
    }

    /// Runs a checkpoint; while the log holds pages committed after it started, tries again a quiet period
    /// later, and then once the store is quiet, so that the end of a burst of commits is copied while the
    /// store is quiet, not at the start of the next burst, whose commits would then append to the old log.
    private func checkpoint() {
        // A checkpoint that fails (the disk, a lock) changes nothing stored; a later commit's growth wants another.
        // Files that changed under the store are not touched at all: SQLite would die writing to an immutable
        // shared-memory file.
        guard (try? files.check()) != nil else { return finished() }
        // At the limit the log must start over (R5), so the checkpoint holds the writer back from the start: a
        // passive one first, copying alongside the commits, made the log grow all the while it synced.
        let result: (walFrameCount: Int, checkpointedFrameCount: Int)
        if logPages >= limit, let restarted = restart() {
            result = restarted
            restartCount.add(1, ordering: .relaxed)
        } else if let passive = try? connection.writeWithoutTransaction({ try Self.checkpoint($0, .passive) }) {
            result = passive
        } else {
            return finished()
        }
        completedCount.add(1, ordering: .releasing)
        // Frames the writer committed while this one copied are in neither count: the log's size as the
        // writer's last commit left it tells. Left for the next burst's growth, a burst's tail kept the log
        // from starting over, and it grew over each burst (to 250 MB over `locd-bench`'s deadline scenario).
        guard result.checkpointedFrameCount < max(result.walFrameCount, logPages) else { return finished() }
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(quietPeriod.nanoseconds))) { [weak self] in
            self?.checkpointWhenQuiet()
        }
    }

    /// A `RESTART` checkpoint, with the writer held at ``waitForRestart()`` meanwhile: a writer that commits
    /// without pause takes SQLite's write lock again as soon as it lets it go, and the checkpoint, which polls
    /// for that lock, starved (the log grew to thousands of pages past the limit).
    private func restart() -> (walFrameCount: Int, checkpointedFrameCount: Int)? {
        restartPending.store(true, ordering: .releasing)
        defer { restartPending.store(false, ordering: .releasing) }
        return gate.withLock { _ in try? connection.writeWithoutTransaction { try Self.checkpoint($0, .restart) } }
    }

    /// Called by the writer before each transaction: returns at once unless a `RESTART` checkpoint is under
    /// way, else once it has finished. Cheap: one atomic load.
    func waitForRestart() {
        guard restartPending.load(ordering: .acquiring) else { return }
        gate.withLock { _ in }
    }

    /// A checkpoint of `mode` on `db`. A connection opens the log only when it first reads a table, and until
    /// then SQLite takes the file for one without a log and checkpoints nothing: the read comes first.
    private static func checkpoint(
        _ db: Database,
        _ mode: Database.CheckpointMode
    ) throws -> (walFrameCount: Int, checkpointedFrameCount: Int) {
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_schema")
        return try db.checkpoint(mode)
    }

    private func finished() {
        running.store(false, ordering: .releasing)
        idle.leave()
    }

    /// Returns once no checkpoint is wanted, waiting or running: after a quiet period at the least, once a
    /// commit has wanted one.
    func waitUntilIdle() {
        idle.wait()
    }

    /// Returns once what is queued for the checkpointer now has run: a checkpoint due at once has finished,
    /// one waiting for a quiet moment is still waiting.
    func drain() {
        queue.sync {}
    }

    /// Whether a checkpoint is wanted, waiting for a quiet moment, or running.
    var isActive: Bool { running.load(ordering: .acquiring) }

    private static func monotonicNow() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}

extension Duration {
    /// The whole nanoseconds of the duration.
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
