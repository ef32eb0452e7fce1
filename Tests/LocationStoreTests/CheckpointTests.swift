import GRDB
import LocationCore
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
            lingerEnds: Instant(nanoseconds: Int64(k))
        )
    }

    @Test("R2: commits never checkpoint; the checkpointer does, and the log starts over once it has")
    func checkpointsOffTheWriter() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory, bootID: "boot-a", checkpointPages: 20)
            let checkpointer = store.checkpointer
            var written: [SessionSnapshot] = []
            func commitBatch() throws {
                let batch = (0..<50).map { Self.session(written.count + $0, app: ($0 * 7) % 13) }
                try store.apply(batch.map(Persist.session))
                written += batch
            }

            // Held back, the checkpointer cannot run: the log only grows, so no commit checkpointed.
            checkpointer.waitUntilIdle()
            let opening = checkpointer.completed
            checkpointer.queue.suspend()
            var sizes: [Int] = []
            for _ in 0..<200 where checkpointer.logPages < checkpointer.threshold * 4 {
                try commitBatch()
                sizes.append(checkpointer.logPages)
            }
            try #require(checkpointer.logPages >= checkpointer.threshold * 4)
            #expect(sizes == sizes.sorted())
            #expect(checkpointer.completed == opening)

            // Let go, it copies the whole log; the next commit writes the log from its beginning again.
            checkpointer.queue.resume()
            checkpointer.waitUntilIdle()
            #expect(checkpointer.completed == opening + 1)
            let before = checkpointer.logPages
            try commitBatch()
            #expect(checkpointer.logPages < before)
            #expect(checkpointer.logPages < checkpointer.threshold)

            // Nothing committed was lost on the way.
            #expect(try store.load().sessions == written.sorted { $0.id < $1.id })
        }
    }

    @Test("R2: a wanted checkpoint waits while commits keep coming, and runs at once once the log passes its limit")
    func waitsForQuietUpToTheLimit() throws {
        try TemporaryDirectory.with { directory in
            // A quiet period longer than the test: only the limit can start a checkpoint here.
            let store = try LocationStore(
                directory: directory,
                bootID: "boot-a",
                checkpointPages: 20,
                checkpointQuiet: .seconds(3600)
            )
            let checkpointer = store.checkpointer
            var written: [SessionSnapshot] = []
            func commitBatch() throws {
                let batch = (0..<50).map { Self.session(written.count + $0, app: $0 % 7) }
                try store.apply(batch.map(Persist.session))
                written += batch
            }
            let opening = checkpointer.completed
            while checkpointer.logPages < checkpointer.threshold { try commitBatch() }
            try #require(checkpointer.logPages < checkpointer.limit)
            checkpointer.drain()
            #expect(checkpointer.isActive, "a checkpoint is wanted")
            #expect(checkpointer.completed == opening, "but waits for a quiet moment")

            while checkpointer.logPages < checkpointer.limit { try commitBatch() }
            // The waiting checkpoint looks at the log's size again within milliseconds, and runs.
            checkpointer.waitUntilIdle()
            #expect(checkpointer.completed == opening + 1)
            let before = checkpointer.logPages
            try commitBatch()
            #expect(checkpointer.logPages < before, "the whole log was copied, so it starts over")
            #expect(try store.load().sessions == written.sorted { $0.id < $1.id })
        }
    }

    @Test("R2: what a checkpoint could not copy is copied once the store is quiet, and the log starts over")
    func copiesTheRestWhenQuiet() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(
                directory: directory,
                bootID: "boot-a",
                checkpointPages: 20,
                checkpointQuiet: .milliseconds(10)
            )
            let checkpointer = store.checkpointer
            var written: [SessionSnapshot] = []
            func commitBatch() throws {
                let batch = (0..<50).map { Self.session(written.count + $0, app: $0 % 7) }
                try store.apply(batch.map(Persist.session))
                written += batch
            }
            try commitBatch()
            // A reader's snapshot keeps a checkpoint from copying what was committed after it was taken, as a
            // burst of commits racing a checkpoint does.
            let reader = try DatabaseQueue(path: store.path)
            try reader.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions")
                while checkpointer.logPages < checkpointer.limit { try commitBatch() }
                // The checkpoint starts within milliseconds of the limit.
                while checkpointer.completed == 0 { checkpointer.drain() }
                #expect(checkpointer.isActive, "a checkpoint left pages behind and tries again")
            }
            // No commit comes now; a later try copies the rest on its own.
            checkpointer.waitUntilIdle()
            let before = checkpointer.logPages
            try commitBatch()
            #expect(checkpointer.logPages < before)
            #expect(try store.load().sessions == written.sorted { $0.id < $1.id })
        }
    }

    @Test("R2: a store reopened after checkpoints loads every write, with the log checkpointed or not")
    func reopenAfterCheckpoints() throws {
        try TemporaryDirectory.with { directory in
            var written: [SessionSnapshot] = []
            do {
                let store = try LocationStore(directory: directory, bootID: "boot-a", checkpointPages: 10)
                for round in 0..<20 {
                    let batch = (0..<25).map { Self.session(round * 25 + $0, app: $0 % 5) }
                    try store.apply(batch.map(Persist.session))
                    written += batch
                }
                store.checkpointer.waitUntilIdle()
                #expect(store.checkpointer.completed > 0)
            }
            let reopened = try LocationStore(directory: directory, bootID: "boot-a")
            #expect(try reopened.load().sessions == written.sorted { $0.id < $1.id })
        }
    }
}
