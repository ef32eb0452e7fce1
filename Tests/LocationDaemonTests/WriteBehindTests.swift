import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import LocationCore
@testable import LocationDaemon

/// The store write-behind on its own (SEMANTICS §10): an `EmbeddedEventLoop` for the daemon's loop, a store
/// that records what it is given (or fails), and commits the test runs by hand, one at a time, where the
/// daemon runs them on the committer's thread.
@Suite struct WriteBehindTests {
    /// Writes what it is given, or fails while `failing`; used on the test's thread only.
    final class RecordingStore: StateStore, @unchecked Sendable {
        var failing = false
        private(set) var stored: [[Persist]] = []

        struct Failure: Error {}

        func apply(_ writes: [Persist]) throws {
            if failing { throw Failure() }
            stored.append(writes)
        }
    }

    /// The committer's queue, run by the test: the commits handed to it wait until ``runNext()``.
    final class ManualQueue: @unchecked Sendable {
        private var jobs: [@Sendable () -> Void] = []
        var count: Int { jobs.count }

        func enqueue(_ job: @escaping @Sendable () -> Void) {
            jobs.append(job)
        }

        func runNext() {
            jobs.removeFirst()()
        }
    }

    /// The session manager's side: what was sent, closed and reported.
    final class RecordingDelegate: WriteBehindDelegate {
        var sent: [Action] = []
        var closed: [UInt64] = []
        var health: [Bool] = []

        func send(_ messages: [Action]) { sent.append(contentsOf: messages) }
        func close(_ client: UInt64) { closed.append(client) }
        func storeHealthChanged(healthy: Bool) { health.append(healthy) }
    }

    /// The write-behind and what it talks to, made on the thread the test runs on: an `EmbeddedEventLoop` is
    /// bound to the thread that made it.
    final class Fixture {
        let loop = EmbeddedEventLoop()
        let store = RecordingStore()
        let queue = ManualQueue()
        let delegate = RecordingDelegate()
        let writeBehind: WriteBehind

        init(maxHeldMessages: Int = 16) {
            let queue = queue
            writeBehind = WriteBehind(
                committer: Committer(store: store) { queue.enqueue($0) },
                limits: CommitLimits(maxPendingWrites: 100, maxHeldMessages: maxHeldMessages),
                eventLoop: loop,
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            )
            writeBehind.delegate = delegate
        }

        /// The app each connection speaks for, as the core says at `Hello`.
        func speak(_ apps: [UInt64: String]) {
            let bindings = apps.map { Action.speaksFor(ClientID($0.key), AppKey.noUser($0.value)) }
            writeBehind.add(bindings, answersCall: true)
        }

        /// Each message sent, as "early 101" (a session sent ahead of its held reply, R11) or "reply 101", with
        /// `client * 100 + serial`.
        var shown: [String] {
            delegate.sent.map { action in
                switch action {
                case .emit(let call, .decided): "early \(call.client.raw * 100 + call.serial)"
                case .reply(let call, _): "reply \(call.client.raw * 100 + call.serial)"
                default: "other"
                }
            }
        }

        /// The connection and serial of each message sent, as `client * 100 + serial`.
        var sent: [UInt64] {
            delegate.sent.map { action in
                guard case .reply(let call, _) = action else { return 0 }
                return call.client.raw * 100 + call.serial
            }
        }
    }

    private func reply(_ client: UInt64, _ serial: UInt64) -> Action {
        .reply(CallID(client: ClientID(client), serial: serial), .empty)
    }

    private func decision(_ appID: String) -> Persist {
        .record(AppKey.noUser(appID), AuthorizationRecord(status: .authorizedWhenInUse))
    }

    @Test("R1: a decision's reply goes out only once its write is stored, not when it is handed to the store")
    func decisionWaitsForItsCommit() {
        let t = Fixture()
        t.writeBehind.add([.persist(.locationServices(false)), reply(1, 1)], answersCall: true)
        t.loop.run()
        #expect(t.queue.count == 1)
        #expect(t.store.stored.isEmpty && t.sent.isEmpty)
        #expect(t.writeBehind.pendingWrites == 1)
        t.queue.runNext()
        #expect(t.store.stored == [[.locationServices(false)]])
        #expect(t.sent == [101])
        #expect(t.writeBehind.pendingWrites == 0)
    }

    @Test("R10: batches are committed one at a time, in the order of their turns; later writes go together")
    func commitsInOrder() {
        let t = Fixture()
        t.writeBehind.add([.persist(decision("a")), reply(1, 1)], answersCall: true)
        t.loop.run()
        t.writeBehind.add([.persist(decision("b")), reply(2, 1)], answersCall: true)
        t.loop.run()
        t.writeBehind.add([.persist(.locationServices(true)), reply(3, 1)], answersCall: true)
        t.loop.run()
        // The committer has the first turn's batch; the next two wait for it, gathered into one.
        #expect(t.queue.count == 1)
        t.queue.runNext()
        #expect(t.sent == [101])
        #expect(t.queue.count == 1)
        t.queue.runNext()
        #expect(t.store.stored == [[decision("a")], [decision("b"), .locationServices(true)]])
        #expect(t.sent == [101, 201, 301])
    }

    @Test("R11: what no reply acknowledges is sent at once and stored with the next commit, or soon after")
    func unacknowledgedWritesDoNotWait() {
        let t = Fixture()
        let ended = Persist.sessionRemoved(AppKey.noUser("a"), SessionID(epoch: 1, number: 7))
        t.writeBehind.add([.persist(ended), reply(1, 1)], answersCall: true)
        t.loop.run()
        #expect(t.sent == [101])
        // No commit of its own at once: it waits for one that something waits for, for a while at most.
        #expect(t.queue.count == 0)
        t.loop.advanceTime(by: WriteBehind.unacknowledgedDelay - .milliseconds(1))
        #expect(t.queue.count == 0)
        t.loop.advanceTime(by: .milliseconds(1))
        #expect(t.queue.count == 1)
        t.queue.runNext()
        #expect(t.store.stored == [[ended]])
    }

    @Test("R11: an ended session and the next acknowledged write are stored in one commit, in order")
    func unacknowledgedWritesGoWithTheNextCommit() {
        let t = Fixture()
        let ended = Persist.sessionRemoved(AppKey.noUser("a"), SessionID(epoch: 1, number: 7))
        t.writeBehind.add([.persist(ended), reply(1, 1)], answersCall: true)
        t.loop.run()
        t.writeBehind.add([.persist(decision("a")), reply(1, 2)], answersCall: true)
        t.loop.run()
        #expect(t.sent == [101])
        #expect(t.queue.count == 1)
        t.queue.runNext()
        #expect(t.store.stored == [[ended, decision("a")]])
        #expect(t.sent == [101, 102])
        // The delayed commit finds nothing left to store.
        t.loop.advanceTime(by: WriteBehind.unacknowledgedDelay)
        #expect(t.queue.count == 0)
    }

    @Test("R11: writes no reply waits for are stored before locd stops")
    func unacknowledgedWritesAreStoredAtStop() {
        let t = Fixture()
        let ended = Persist.sessionRemoved(AppKey.noUser("a"), SessionID(epoch: 1, number: 7))
        t.writeBehind.add([.persist(ended), reply(1, 1)], answersCall: true)
        t.loop.run()
        let finished = t.writeBehind.finishCommits()
        #expect(t.queue.count == 1)
        t.queue.runNext()
        t.loop.run()
        #expect(t.store.stored == [[ended]])
        let done = NIOLockedValueBox(false)
        finished.whenSuccess { done.withLockedValue { $0 = true } }
        #expect(done.withLockedValue { $0 })
    }

    @Test("R2: a session a call writes holds its reply; the same session written by a deadline does not")
    func sessionWaitsOnlyForItsCall() {
        let t = Fixture()
        let session = Persist.session(
            SessionSnapshot(
                id: SessionID(epoch: 1, number: 1),
                appID: "a",
                kind: .explicit,
                requirement: .whenInUse,
                purposeKey: nil,
                ownerPID: 42,
                lingerEnds: nil,
                user: nil
            )
        )
        t.writeBehind.add([.persist(session), reply(1, 1)], answersCall: false)
        t.loop.run()
        #expect(t.sent == [101])
        #expect(t.queue.count == 0)
        t.writeBehind.add([.persist(session), reply(1, 2)], answersCall: true)
        t.loop.run()
        #expect(t.sent == [101])
        t.queue.runNext()
        #expect(t.sent == [101, 102])
        #expect(t.store.stored == [[session, session]])
    }

    /// A session `CreateSession` wrote, as the store gets it, and as its reply shows it.
    private func createdSession(_ number: UInt64, app: String = "a") -> (write: Persist, view: SessionView) {
        let id = SessionID(epoch: 1, number: number)
        let snapshot = SessionSnapshot(
            id: id,
            appID: app,
            kind: .explicit,
            requirement: .whenInUse,
            purposeKey: nil,
            ownerPID: 42,
            lingerEnds: nil,
            user: nil
        )
        let view = SessionView(
            id: id,
            appID: app,
            kind: .explicit,
            requirement: .whenInUse,
            purposeKey: nil,
            state: .active,
            diagnostic: DiagnosticMask(),
            deadline: nil,
            remaining: nil,
            user: nil
        )
        return (.session(snapshot), view)
    }

    @Test("R11: a session call with more hears the session at once, continuing, and its reply once it is stored")
    func sessionDecidedBeforeStored() {
        let t = Fixture()
        let call = CallID(client: ClientID(1), serial: 1)
        let session = createdSession(1)
        t.writeBehind.add(
            [.persist(session.write), .emit(call, .decided(session.view)), .reply(call, .session(session.view))],
            answersCall: true
        )
        t.loop.run()
        #expect(t.shown == ["early 101"])
        if case .emit(_, .decided(let early)) = t.delegate.sent.first { #expect(early == session.view) }
        #expect(t.queue.count == 1 && t.store.stored.isEmpty)
        t.queue.runNext()
        #expect(t.store.stored == [[session.write]])
        #expect(t.shown == ["early 101", "reply 101"])
        // Without `more` the reply alone comes, once stored.
        let plain = CallID(client: ClientID(1), serial: 2)
        let next = createdSession(2)
        t.writeBehind.add([.persist(next.write), .reply(plain, .session(next.view))], answersCall: true)
        t.loop.run()
        #expect(t.shown == ["early 101", "reply 101"])
        t.queue.runNext()
        #expect(t.shown == ["early 101", "reply 101", "reply 102"])
    }

    @Test("R11, R12: a session goes ahead of its reply only when no decision must be stored first")
    func sessionDecidedWaitsForDecisions() {
        let t = Fixture()
        t.speak([1: "a", 2: "a", 3: "b"])
        // The same event writes a decision: nothing goes ahead of it (R1), and no early session at all.
        let first = CallID(client: ClientID(1), serial: 1)
        let session = createdSession(1)
        t.writeBehind.add(
            [.persist(decision("a")), .persist(session.write), .reply(first, .session(session.view))],
            answersCall: true
        )
        t.loop.run()
        #expect(t.shown.isEmpty)
        // Another connection of the app while that decision is not stored: held (R12); another app's is not.
        let second = CallID(client: ClientID(2), serial: 1)
        let other = CallID(client: ClientID(3), serial: 1)
        let theirs = createdSession(2)
        let others = createdSession(3, app: "b")
        t.writeBehind.add(
            [.persist(theirs.write), .emit(second, .decided(theirs.view)), .reply(second, .session(theirs.view))],
            answersCall: true
        )
        t.writeBehind.add(
            [.persist(others.write), .emit(other, .decided(others.view)), .reply(other, .session(others.view))],
            answersCall: true
        )
        t.loop.run()
        #expect(t.shown == ["early 301"])
        t.queue.runNext()
        #expect(t.shown == ["early 301", "reply 101", "early 201"])
        t.queue.runNext()
        #expect(t.shown == ["early 301", "reply 101", "early 201", "reply 201", "reply 301"])
    }

    @Test("R11: a failing store holds acknowledgements, retries every second, and releases them in order")
    func failingStoreHoldsAndRetries() {
        let t = Fixture()
        t.store.failing = true
        t.writeBehind.add([.persist(decision("a")), reply(1, 1)], answersCall: true)
        t.loop.run()
        // Waits for nothing itself, but behind its connection's held reply (R10).
        t.writeBehind.add([reply(1, 2)], answersCall: true)
        t.writeBehind.add([reply(2, 1)], answersCall: true)
        t.loop.run()
        #expect(t.sent == [201])
        t.queue.runNext()
        #expect(t.delegate.health == [false])
        #expect(t.queue.count == 0 && t.sent == [201])
        t.writeBehind.add([.persist(.locationServices(false)), reply(1, 3)], answersCall: true)
        t.loop.run()
        t.loop.advanceTime(by: .milliseconds(999))
        #expect(t.queue.count == 0)
        t.loop.advanceTime(by: .milliseconds(1))
        // The retry takes the failed batch and what was gathered since, in one transaction.
        #expect(t.queue.count == 1)
        t.queue.runNext()
        #expect(t.delegate.health == [false])
        #expect(t.sent == [201])
        t.loop.advanceTime(by: .seconds(1))
        t.store.failing = false
        t.queue.runNext()
        #expect(t.store.stored == [[decision("a"), .locationServices(false)]])
        #expect(t.delegate.health == [false, true])
        #expect(t.sent == [201, 101, 102, 103])
        #expect(t.delegate.closed.isEmpty)
        #expect(t.writeBehind.storeHealthy)
    }

    @Test("R12: while an app's decision is not stored, nothing reaches its connections; other apps' do")
    func undurableDecisionHoldsItsApp() {
        let t = Fixture()
        t.speak([1: "a", 2: "a", 3: "b"])
        t.writeBehind.add([.persist(decision("a")), reply(1, 1)], answersCall: true)
        t.loop.run()
        t.writeBehind.add([reply(2, 1), reply(3, 1)], answersCall: true)
        t.loop.run()
        #expect(t.sent == [301])
        t.queue.runNext()
        #expect(t.sent == [301, 101, 201])
    }

    @Test("R12, L3: a connection the core says speaks for no app any more, or that closed, waits for no app's decision")
    func unboundConnectionWaitsForNoApp() {
        let t = Fixture()
        t.speak([1: "a", 2: "a"])
        t.writeBehind.add([.persist(decision("a")), reply(1, 1)], answersCall: true)
        t.loop.run()
        // Goodbye unbinds connection 2: its next reply does not wait for the app's decision.
        t.writeBehind.add([.speaksFor(ClientID(2), nil), reply(2, 1)], answersCall: true)
        t.loop.run()
        #expect(t.sent == [201])
        // A closed connection's held messages, and its app, go with it.
        t.writeBehind.drop(1)
        t.queue.runNext()
        #expect(t.sent == [201])
    }

    @Test("R11, R1: a decided session the same event's decision must precede waits for that decision")
    func decidedWaitsForItsEventsDecision() {
        let t = Fixture()
        let call = CallID(client: ClientID(1), serial: 1)
        let session = createdSession(1)
        t.writeBehind.add(
            [
                .persist(decision("a")), .persist(session.write), .emit(call, .decided(session.view)),
                .reply(call, .session(session.view)),
            ],
            answersCall: true
        )
        t.loop.run()
        #expect(t.shown.isEmpty)
        t.queue.runNext()
        #expect(t.shown == ["early 101", "reply 101"])
    }

    @Test("R13: a connection that lets more than max-held-messages wait for the store is closed, its messages dropped")
    func heldMessagesAreBounded() {
        let t = Fixture(maxHeldMessages: 2)
        t.writeBehind.add([.persist(decision("a")), reply(1, 1), reply(1, 2), reply(1, 3)], answersCall: true)
        t.loop.run()
        #expect(t.delegate.closed == [1])
        #expect(t.writeBehind.pendingWrites == 1)
        t.writeBehind.drop(1)
        t.queue.runNext()
        #expect(t.sent.isEmpty)
    }

    @Test("R2: stopping commits what was gathered, and the future completes once it is stored")
    func finishCommitsDrains() {
        let t = Fixture()
        t.writeBehind.add([.persist(decision("a")), reply(1, 1)], answersCall: true)
        let finished = t.writeBehind.finishCommits()
        var done = false
        finished.assumeIsolated().whenSuccess { done = true }
        #expect(t.queue.count == 1 && !done)
        t.queue.runNext()
        #expect(done)
        #expect(t.store.stored == [[decision("a")]])
        #expect(t.sent == [101])
        // The turn's own flush, still scheduled, finds nothing left to send or store.
        t.loop.run()
        #expect(t.queue.count == 0 && t.sent == [101])
    }
}
