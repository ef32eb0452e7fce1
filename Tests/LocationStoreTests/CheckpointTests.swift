import GRDB
import LocationCore
import LocationTestSupport
import Testing

@testable import LocationStore

/// The log is copied into the store file by the checkpointer's own connection, never by a commit (R2).
@Suite struct CheckpointTests {
    /// A session of `app` with number `k`, lingering until `k`, so that each write changes a row.
    static func session(_ k: Int, app: Int) -> SessionSnapshot {
        SessionSnapshot(
            id: SessionID(epoch: 1, number: UInt64(k)),
            appID: "com.ex.app\(app)",
            kind: .explicit,
            requirement: .whenInUse,
            purposeKey: "Navigation",
            ownerPID: 42,
            lingerEnds: Instant(nanoseconds: Int64(k)),
            user: nil
        )
    }

    /// A store that wants a checkpoint every 20 pages, and the sessions committed to it, 50 at a time.
    final class Burst {
        let store: LocationStore
        private(set) var written: [SessionSnapshot] = []
        var checkpointer: Checkpointer { store.checkpointer }

        init(directory: String, quiet: Duration = .milliseconds(100)) throws {
            store = try LocationStore(
                directory: directory,
                bootID: "boot-a",
                checkpointPages: 20,
                checkpointQuiet: quiet
            )
        }

        /// Commits 50 sessions spread over 7 apps.
        func commit() throws {
            let batch = (0..<50).map { CheckpointTests.session(written.count + $0, app: $0 % 7) }
            try store.apply(batch.map(Persist.session))
            written += batch
        }

        /// Nothing committed was lost on the way.
        func expectEverySessionLoads() throws {
            #expect(try store.load().sessions == written.sorted { $0.id < $1.id })
        }
    }

    @Test("R2: commits never checkpoint; the checkpointer does, and the log starts over once it has")
    func checkpointsOffTheWriter() throws {
        try TemporaryDirectory.with { directory in
            let burst = try Burst(directory: directory.path)
            let checkpointer = burst.checkpointer

            // Held back, the checkpointer cannot run: the log only grows, so no commit checkpointed.
            checkpointer.waitUntilIdle()
            let opening = checkpointer.completed
            checkpointer.queue.suspend()
            var sizes: [Int] = []
            for _ in 0..<200 where checkpointer.logPages < checkpointer.limit {
                try burst.commit()
                sizes.append(checkpointer.logPages)
            }
            try #require(checkpointer.logPages >= checkpointer.limit)
            #expect(sizes == sizes.sorted())
            #expect(checkpointer.completed == opening)

            // Let go, it copies the whole log; the next commit writes the log from its beginning again.
            checkpointer.queue.resume()
            checkpointer.waitUntilIdle()
            #expect(checkpointer.completed == opening + 1)
            let before = checkpointer.logPages
            try burst.commit()
            #expect(checkpointer.logPages < before)
            #expect(checkpointer.logPages < checkpointer.threshold)
            try burst.expectEverySessionLoads()
        }
    }

    @Test("R2: a wanted checkpoint waits while commits keep coming, and runs at once once the log passes its limit")
    func waitsForQuietUpToTheLimit() throws {
        try TemporaryDirectory.with { directory in
            // A quiet period longer than the test: only the limit can start a checkpoint here.
            let burst = try Burst(directory: directory.path, quiet: .seconds(3600))
            let checkpointer = burst.checkpointer
            let opening = checkpointer.completed
            while checkpointer.logPages < checkpointer.threshold { try burst.commit() }
            try #require(checkpointer.logPages < checkpointer.limit)
            checkpointer.drain()
            #expect(checkpointer.isActive, "a checkpoint is wanted")
            #expect(checkpointer.completed == opening, "but waits for a quiet moment")

            while checkpointer.logPages < checkpointer.limit { try burst.commit() }
            // The waiting checkpoint looks at the log's size again within milliseconds, and runs.
            checkpointer.waitUntilIdle()
            #expect(checkpointer.completed == opening + 1)
            let before = checkpointer.logPages
            try burst.commit()
            #expect(checkpointer.logPages < before, "the whole log was copied, so it starts over")
            try burst.expectEverySessionLoads()
        }
    }

    @Test("R5: under commits without pause the log starts over at its limit, so it stays bounded")
    func boundedWithoutPause() throws {
        try TemporaryDirectory.with { directory in
            // Never quiet: only the limit can start a checkpoint, and without one that starts the log over it
            // grew by every commit (600 commits of 50 sessions: thousands of pages).
            let burst = try Burst(directory: directory.path, quiet: .seconds(3600))
            let checkpointer = burst.checkpointer
            var largest = 0
            var previous = 0
            var startedOver = 0
            for _ in 0..<600 {
                try burst.commit()
                let pages = checkpointer.logPages
                largest = max(largest, pages)
                if pages < previous { startedOver += 1 }
                previous = pages
            }
            // The checkpointer's thread starts the log over at the limit, and the writer itself at half again as
            // much if that thread was slow to come round (on a loaded machine it may do all of them); one commit
            // may end past it.
            #expect(largest < checkpointer.hardLimit + 40, "the log reached \(largest) pages")
            #expect(startedOver >= 1, "the log never started over (\(checkpointer.restarts) restarts)")
            try burst.expectEverySessionLoads()
        }
    }

    @Test("R2: what a checkpoint could not copy is copied once the store is quiet, and the log starts over")
    func copiesTheRestWhenQuiet() throws {
        try TemporaryDirectory.with { directory in
            let burst = try Burst(directory: directory.path, quiet: .milliseconds(10))
            let checkpointer = burst.checkpointer
            try burst.commit()
            // A reader's snapshot keeps a checkpoint from copying what was committed after it was taken, as a
            // burst of commits racing a checkpoint does.
            let reader = try DatabaseQueue(path: burst.store.path)
            try reader.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions")
                while checkpointer.logPages < checkpointer.limit { try burst.commit() }
                // The checkpoint starts within milliseconds of the limit.
                while checkpointer.completed == 0 { checkpointer.drain() }
                #expect(checkpointer.isActive, "a checkpoint left pages behind and tries again")
            }
            // No commit comes now; a later try copies the rest on its own.
            checkpointer.waitUntilIdle()
            let before = checkpointer.logPages
            try burst.commit()
            #expect(checkpointer.logPages < before)
            try burst.expectEverySessionLoads()
        }
    }

    @Test("R2: a store reopened after checkpoints loads every write, with the log checkpointed or not")
    func reopenAfterCheckpoints() throws {
        try TemporaryDirectory.with { directory in
            var written: [SessionSnapshot] = []
            do {
                let store = try LocationStore(directory: directory.path, bootID: "boot-a", checkpointPages: 10)
                for round in 0..<20 {
                    let batch = (0..<25).map { Self.session(round * 25 + $0, app: $0 % 5) }
                    try store.apply(batch.map(Persist.session))
                    written += batch
                }
                store.checkpointer.waitUntilIdle()
                #expect(store.checkpointer.completed > 0)
            }
            let reopened = try LocationStore(directory: directory.path, bootID: "boot-a")
            #expect(try reopened.load().sessions == written.sorted { $0.id < $1.id })
        }
    }
}
