import Foundation
import GRDB
import LocationCore
import LocationTestSupport
import Synchronization
import Testing

@testable import LocationStore

/// R1: decisions are on stable storage before the reply; an event is stored whole or not at all.
@Suite struct DurabilityTests {
    @Test("R1: a decision is in the store when apply returns")
    func decisionVisibleToAnotherConnection() throws {
        try TemporaryDirectory.with { directory in
            let daemon = try LocationStore(directory: directory.path, bootID: "boot-a")
            let record = AuthorizationRecord(status: .authorizedWhenInUse, accuracy: .reducedAccuracy)
            try daemon.apply([.record(AppKey.noUser("com.ex.maps"), record), .locationServices(false)])
            // A second connection, while the first stays open: what it reads is what a restart would read.
            let other = try LocationStore(directory: directory.path, bootID: "boot-a")
            let loaded = try other.load()
            #expect(loaded.records == [AppKey.noUser("com.ex.maps"): record])
            #expect(loaded.locationServicesEnabled == false)
            withExtendedLifetime(daemon) {}
        }
    }

    @Test("R1: a commit with a decision runs with synchronous FULL, any other with NORMAL")
    func synchronousPerTransaction() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            func synchronous() throws -> Int? {
                try store.queue.read { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
            }
            let full = 2
            let normal = 1
            #expect(try synchronous() == normal)
            try store.apply([.app(Self.app(1))])
            #expect(try synchronous() == normal)
            try store.apply([
                .sessionRemoved(AppKey.noUser("com.ex.maps"), SessionID(epoch: 1, number: 1)),
                .record(AppKey.noUser("com.ex.maps"), AuthorizationRecord()),
            ])
            #expect(try synchronous() == full)
            try store.apply([.promptRemoved(PromptID(epoch: 1, number: 1))])
            #expect(try synchronous() == normal)
            try store.apply([.locationServices(true)])
            #expect(try synchronous() == full)
            try store.apply(batch: [[.promptRemoved(PromptID(epoch: 1, number: 1))]])
            #expect(try synchronous() == normal)
            try store.apply(batch: [[.promptRemoved(PromptID(epoch: 1, number: 1))], [.locationServices(false)]])
            #expect(try synchronous() == full)
            #expect(try store.queue.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        }
    }

    @Test("R1: no partial event is ever visible to another connection")
    func noPartialEventVisible() throws {
        try TemporaryDirectory.with { directory in
            let writer = try LocationStore(directory: directory.path, bootID: "boot-a")
            let reader = try LocationStore(directory: directory.path, bootID: "boot-a")
            let events = 300
            let failure = Failure()
            let started = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                defer { done.signal() }
                started.wait()
                do {
                    for k in 1...events { try writer.apply(Self.event(k)) }
                } catch {
                    failure.record("\(error)")
                }
            }
            // Every read sees the state after a whole number of events, until it sees the last one. Most reads
            // are plain read transactions, which never wait for the writer; every tenth is a full `load()`.
            let deadline = Date().addingTimeInterval(60)
            var seen = Set<Int>()
            var reads = 0
            while Date() < deadline && failure.message == nil {
                let snapshot =
                    reads % 10 == 0 ? try reader.load() : try reader.queue.read { try reader.readSnapshot($0) }
                if reads == 0 { started.signal() }
                reads += 1
                let k = Int(snapshot.apps.first?.graceEnds?.nanoseconds ?? 0)
                #expect(snapshot == Self.state(after: k), "a read saw part of event \(k + 1)")
                seen.insert(k)
                if k == events { break }
            }
            done.wait()
            #expect(failure.message == nil)
            #expect(seen.contains(0) && seen.contains(events))
            #expect(try LocationStore(directory: directory.path, bootID: "boot-a").load() == Self.state(after: events))
        }
    }

    @Test("R1: an event whose write fails leaves nothing of itself behind")
    func failedEventRollsBack() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            try store.apply(Self.event(1))
            // Stand-in for a crash or a full disk in the middle of an event: the event's last write fails.
            try store.queue.write { db in
                try db.execute(
                    sql: "CREATE TRIGGER fail BEFORE INSERT ON prompts BEGIN SELECT RAISE(ABORT, 'injected'); END"
                )
            }
            #expect(throws: StoreError.self) { try store.apply(Self.event(2)) }
            #expect(try store.load() == Self.state(after: 1))
            try store.queue.write { db in try db.execute(sql: "DROP TRIGGER fail") }
            try store.apply(Self.event(2))
            #expect(try store.load() == Self.state(after: 2))
        }
    }

    /// Event `k` moves the one session and the one prompt from number `k - 1` to `k`, stamps the app with `k`,
    /// and on odd `k` adds a record, a decision, so that both kinds of commit are exercised.
    static func event(_ k: Int) -> [Persist] {
        var writes: [Persist] = [
            .sessionRemoved(AppKey.noUser("com.ex.maps"), SessionID(epoch: 1, number: UInt64(k - 1))),
            .session(session(k)),
            .app(app(k)),
            .promptRemoved(PromptID(epoch: 1, number: UInt64(k - 1))),
        ]
        if k % 2 == 1 {
            writes.append(.record(AppKey.noUser("com.ex.app\(k)"), AuthorizationRecord(status: .denied)))
        }
        writes.append(.prompt(prompt(k)))
        return writes
    }

    static func state(after k: Int) -> CoreSnapshot {
        Samples.expected(after: (0..<k).flatMap { event($0 + 1) })
    }

    static func session(_ k: Int) -> SessionSnapshot {
        SessionSnapshot(
            id: SessionID(epoch: 1, number: UInt64(k)),
            appID: "com.ex.maps",
            kind: .explicit,
            requirement: .whenInUse,
            purposeKey: nil,
            ownerPID: 42,
            lingerEnds: nil,
            user: nil
        )
    }

    static func app(_ k: Int) -> AppSnapshot {
        AppSnapshot(
            appID: "com.ex.maps",
            state: .background,
            graceEnds: Instant(nanoseconds: Int64(k)),
            relaunchEnds: nil,
            inUseAtTermination: false,
            user: nil
        )
    }

    static func prompt(_ k: Int) -> PromptSnapshot {
        PromptSnapshot(
            id: PromptID(epoch: 1, number: UInt64(k)),
            appID: "com.ex.maps",
            kind: .authorization,
            purposeKey: nil,
            raisedAt: .seconds(Double(k)),
            user: nil
        )
    }
}

/// The writer thread's error, if any, for the test's thread to read.
private final class Failure: Sendable {
    private let stored = Mutex<String?>(nil)
    var message: String? { stored.withLock { $0 } }
    func record(_ message: String) { stored.withLock { $0 = message } }
}
