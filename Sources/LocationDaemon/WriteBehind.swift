import LocationCore
import Logging
import NIOCore

/// What the write-behind asks of the session manager: to send messages, to close a connection, and to tell the core
/// when the store fails or recovers.
protocol WriteBehindDelegate: AnyObject {
    /// Sends replies and stream messages that wait for nothing (any more), in order.
    func send(_ messages: [Action])
    /// Closes a connection that let more than `max-held-messages` pile up (R13).
    func close(_ client: UInt64)
    /// The store failed, or is writable again (U4: monitors report `persistenceUnavailable`).
    func storeHealthChanged(healthy: Bool)
}

/// Store write-behind (SEMANTICS §10): gathers each event-loop turn's writes and messages, commits the writes
/// off the loop through a ``Committer``, one batch at a time in order, and holds the messages that wait for
/// them, per connection and in the order the core produced them, until they are stored (R10–R12). A failing
/// store holds them and is retried every second; what waits is bounded (R13).
///
/// Loop-bound: every method runs on the session manager's event loop.
final class WriteBehind {
    weak var delegate: (any WriteBehindDelegate)?
    let limits: CommitLimits
    private let committer: Committer?
    private let eventLoop: any EventLoop
    private let logger: Logger
    /// The number of the newest turn that had writes; turns are numbered from 1, 0 means none.
    private var lastTurn: UInt64 = 0
    /// Turns with writes a reply acknowledges (a decision or a session) that are not stored yet: the messages
    /// of the events that made those writes wait for them.
    private var unreleased: Set<UInt64> = []
    /// The writes the committer has (or that failed and wait for a retry), and those gathered meanwhile.
    private var committing: CommitBatch?
    private var openBatch = CommitBatch()
    /// Messages waiting for the store, in the order the core produced them.
    private var held = HeldMessages()
    /// The newest turn with a decision about an app (or the global switch) that is not stored yet: until
    /// it is, that app's connections see nothing newer than the stored decision (R12).
    private var undurableDecisions: [AppKey: UInt64] = [:]
    private var undurableSwitch: UInt64 = 0
    /// The app each connection speaks for, as the core said (``Action/speaksFor(_:_:)``): its messages wait for that
    /// app's decisions (R12). A connection that speaks for none has no entry.
    private var appsOfConnections: [UInt64: AppKey] = [:]
    /// ``finishCommits()`` calls waiting for the last batch.
    private var drains: [EventLoopPromise<Void>] = []
    private var retry: Scheduled<Void>?
    private(set) var storeHealthy = true
    /// The writes and messages of the current event-loop turn, and whether their flush is scheduled.
    private var batchWrites: [Persist] = []
    private var batchMessages: [Action] = []
    /// For each of `batchMessages`, whether the event that produced it made a write a reply acknowledges.
    private var batchMessageWaits: [Bool] = []
    private var flushScheduled = false
    /// Writes past which a turn's batch is committed at once rather than at the end of the turn, and past which
    /// writes no reply waits for are committed without waiting for ``unacknowledgedDelay``.
    private static let largeBatch = 256
    /// How long writes no reply waits for (R11) may wait for a commit that something waits for, to go with it in
    /// one transaction: an app that ends a session and creates the next pays one commit, not two.
    static let unacknowledgedDelay = TimeAmount.milliseconds(50)
    /// The commit of gathered unacknowledged writes, once ``unacknowledgedDelay`` has passed.
    private var unacknowledgedCommit: Scheduled<Void>?
    private var isFlushing = false

    /// - Parameter committer: where writes are stored; without one, nothing is stored and nothing waits.
    init(committer: Committer?, limits: CommitLimits, eventLoop: any EventLoop, logger: Logger) {
        self.committer = committer
        self.limits = limits
        self.eventLoop = eventLoop
        self.logger = logger
    }

    /// Writes not yet stored: those the committer has or that wait for a retry, and those gathered since.
    var pendingWrites: Int { openBatch.writes.count + (committing?.writes.count ?? 0) }

    /// Forgets a closed connection's held messages and its app.
    func drop(_ client: UInt64) {
        held.drop(client)
        appsOfConnections.removeValue(forKey: client)
    }

    /// Collects an event's writes and messages into the batch of this event-loop turn; other actions are the
    /// caller's.
    ///
    /// The event's messages wait for its writes if one is a decision (R1: its reply, and every stream value
    /// that shows it, R12), or a session the event's reply acknowledges (R2: a call's). A session written
    /// by a disconnect or a deadline acknowledges nothing, and what streams say of it need not wait. The
    /// session the core sends ahead of its reply (``StreamMessage/decided(_:)``) waits for decisions only (R11).
    func add(_ actions: [Action], answersCall: Bool) {
        let first = batchMessages.count
        var decides = false
        var storesSession = false
        var decided: Int?
        for action in actions {
            switch action {
            case .persist(let write):
                batchWrites.append(write)
                decides = decides || write.isDecision
                storesSession = storesSession || (answersCall && write.isSession)
            case .speaksFor(let client, let app): appsOfConnections[client.raw] = app
            case .armTimer, .provider, .nobodyToAsk, .overruled, .carriedOver, .refused: break
            case .emit(_, .decided):
                decided = batchMessages.count
                batchMessages.append(action)
            default: batchMessages.append(action)
            }
        }
        // Only this event's messages wait for its writes, not those of the turn's other events (R10).
        let waits = decides || storesSession
        batchMessageWaits.append(contentsOf: repeatElement(waits, count: batchMessages.count - first))
        if let decided { batchMessageWaits[decided] = decides }
        // A turn that piles up many writes (a thousand clients gone at once) commits and sends as it goes,
        // so that what each event stamped goes out close to its stamp and later deadlines are not held
        // behind one huge commit. Not while a flush sends: a reply there can start a connection's next
        // call, whose messages must follow the ones still being sent.
        if batchWrites.count >= Self.largeBatch && !isFlushing { return flushBatch() }
        guard !flushScheduled else { return }
        flushScheduled = true
        // A task runs after the loop has handled every read of this turn: one commit for all of them.
        eventLoop.assumeIsolated().execute { [self] in flushBatch() }
    }

    /// Hands the turn's writes to the committer, then sends the turn's replies and stream messages, in the
    /// order the core produced them, each at once or once the writes it waits for are stored (R1, R2, R10).
    private func flushBatch() {
        flushScheduled = false
        isFlushing = true
        defer { isFlushing = false }
        let writes = batchWrites
        let messages = batchMessages
        let waits = batchMessageWaits
        batchWrites.removeAll(keepingCapacity: true)
        batchMessages.removeAll(keepingCapacity: true)
        batchMessageWaits.removeAll(keepingCapacity: true)
        var gate: UInt64 = 0
        if !writes.isEmpty, committer != nil {
            lastTurn += 1
            // What no reply acknowledges is served from memory at once, and stored with the batch (R11).
            if waits.contains(true) {
                gate = lastTurn
                unreleased.insert(lastTurn)
            }
            for write in writes {
                switch write {
                case .record(let app, _): undurableDecisions[app] = lastTurn
                // A user's own switch (H6) holds every app's messages, as the machine's does: it is rare.
                case .locationServices, .userLocationServices: undurableSwitch = lastTurn
                default: break
                }
            }
            openBatch.append(writes, turn: lastTurn)
            if gate != 0 || openBatch.writes.count >= Self.largeBatch {
                commitNext()
            } else {
                commitUnacknowledgedLater()
            }
        }
        route(messages, waits: waits, turn: gate)
    }

    /// Sends each message now, or holds it behind its connection's held messages or the writes it waits for.
    /// - Parameters:
    ///   - waits: for each message, whether it waits for the turn's writes.
    ///   - turn: the turn's number, if its writes hold messages back.
    private func route(_ messages: [Action], waits: [Bool], turn: UInt64) {
        guard !messages.isEmpty else { return }
        let appsWait = undurableSwitch != 0 || !undurableDecisions.isEmpty
        guard turn != 0 || appsWait || !held.isEmpty else {
            delegate?.send(messages)
            return
        }
        var now: [Action] = []
        for (action, waitsForTurn) in zip(messages, waits) {
            guard let client = action.client else { continue }
            var message = HeldMessage(turn: waitsForTurn ? turn : 0, decision: 0, action: action)
            if appsWait, let app = appsOfConnections[client.raw] {
                message.decision = max(undurableDecisions[app] ?? 0, undurableSwitch)
            }
            let waiting = held.count(of: client.raw)
            if waiting == 0 && isReleased(message) {
                now.append(action)
            } else {
                hold(message, for: client.raw, behind: waiting)
            }
        }
        delegate?.send(now)
    }

    private func isReleased(_ message: HeldMessage) -> Bool {
        (message.turn == 0 || !unreleased.contains(message.turn))
            && (message.decision == 0 || !unreleased.contains(message.decision))
    }

    /// Queues a message for a connection that has `count` held already; one that lets `max-held-messages`
    /// pile up is closed (R13).
    private func hold(_ message: HeldMessage, for client: UInt64, behind count: Int) {
        guard count < limits.maxHeldMessages else {
            logger.warning(
                "closing connection \(client): \(count) messages wait for the store, over max-held-messages"
            )
            delegate?.close(client)
            return
        }
        held.append(message, for: client)
    }

    /// Sends, per connection and in order, the held messages whose writes are stored.
    private func releaseHeld() {
        guard !held.isEmpty else { return }
        let ready = held.release(where: isReleased)
        // A reply sent here can start its connection's next call; its messages wait for the next turn.
        isFlushing = true
        defer { isFlushing = false }
        delegate?.send(ready)
    }

    // MARK: Committing

    /// Commits writes that no reply waits for within ``unacknowledgedDelay``, unless a commit takes them sooner
    /// (R11: stored with the next commit). One commit is pending at most; it does nothing if none is left.
    private func commitUnacknowledgedLater() {
        guard unacknowledgedCommit == nil, committing == nil else { return }
        unacknowledgedCommit = eventLoop.assumeIsolated().scheduleTask(in: Self.unacknowledgedDelay) { [self] in
            unacknowledgedCommit = nil
            commitNext()
        }
    }

    /// Hands the gathered writes to the committer, unless it has a batch already: they then go together,
    /// as the next batch, when it is done (group commit).
    private func commitNext() {
        guard committing == nil, !openBatch.isEmpty else { return }
        committing = openBatch
        openBatch = CommitBatch()
        submit()
    }

    private func submit() {
        guard let committer, let batch = committing else { return }
        committer.commit(batch.writes, on: eventLoop).assumeIsolated().whenComplete { [self] result in
            committed(result)
        }
    }

    private func committed(_ result: Result<Void, any Error>) {
        guard let batch = committing else { return }
        switch result {
        case .success:
            committing = nil
            for turn in batch.turns { unreleased.remove(turn) }
            let last = batch.lastTurn
            undurableDecisions = undurableDecisions.filter { $0.value > last }
            if undurableSwitch <= last { undurableSwitch = 0 }
            if !storeHealthy {
                storeHealthy = true
                logger.notice("store writable again")
                delegate?.storeHealthChanged(healthy: true)
            }
            releaseHeld()
            commitNext()
            if committing == nil { finishDrains() }
        case .failure(let error):
            if storeHealthy {
                logger.error("store write failed, serving from memory and retrying: \(error)")
                storeHealthy = false
                // Monitors report persistenceUnavailable (U4); the core's messages go out with the next batch.
                delegate?.storeHealthChanged(healthy: false)
            }
            // Stopping: one attempt only; what it held is lost as in a crash, and nothing acknowledged it.
            if drains.isEmpty { scheduleRetry() } else { finishDrains() }
        }
    }

    private func scheduleRetry() {
        guard retry == nil else { return }
        retry = eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) { [self] in
            retry = nil
            retryNow()
        }
    }

    /// Commits the failed batch again, with everything gathered since, in one transaction.
    private func retryNow() {
        guard var batch = committing else { return }
        batch.absorb(openBatch)
        openBatch = CommitBatch()
        committing = batch
        submit()
    }

    /// Commits what is gathered or waiting for a retry, once, before locd stops; the future completes when the
    /// last batch is stored or has failed (then it is lost, as in a crash, and nothing acknowledged it).
    func finishCommits() -> EventLoopFuture<Void> {
        if flushScheduled { flushBatch() }
        guard committing != nil || !openBatch.isEmpty else { return eventLoop.makeSucceededVoidFuture() }
        let promise = eventLoop.makePromise(of: Void.self)
        drains.append(promise)
        if let pending = retry {
            pending.cancel()
            retry = nil
            retryNow()
        }
        // Unacknowledged writes waiting for a commit go now.
        commitNext()
        return promise.futureResult
    }

    private func finishDrains() {
        let waiting = drains
        drains = []
        for promise in waiting { promise.succeed(()) }
    }
}

extension Action {
    /// The connection a reply or stream message goes to.
    fileprivate var client: ClientID? {
        switch self {
        case .reply(let call, _), .fail(let call, _), .emit(let call, _), .end(let call, _): call.client
        case .persist, .armTimer, .provider, .nobodyToAsk, .overruled, .carriedOver, .speaksFor, .refused: nil
        }
    }
}

extension Persist {
    fileprivate var isSession: Bool {
        if case .session = self { return true }
        return false
    }
}
