import JSON
import LocationCore
import Logging
import NIOCore
import SystemdSupport
import Varlink

/// Where the daemon's writes go (SEMANTICS §10); the SQLite store in production.
///
/// Called from the ``Committer``'s thread, never from the event loop.
protocol StateStore: AnyObject, Sendable {
    /// Applies one event's writes atomically; decisions are durable when it returns (R1).
    func apply(_ writes: [Persist]) throws
}

/// The bounds of what the daemon keeps while writes wait for the store (SEMANTICS §10, R13).
struct CommitLimits {
    /// `max-pending-writes`: past it, calls that may write are refused until the store catches up.
    var maxPendingWrites = 65_536
    /// `max-held-messages`: a connection with more messages waiting for the store is closed.
    var maxHeldMessages = 16_384
}

/// What the daemon reports about itself beyond the core: the rest of `Admin.Status`.
struct DaemonFacts {
    var version: String
    var pid: Int32
    var startedAt: Instant
}

/// The daemon's shell: decode a call, hand it to the core, then carry out the actions — store writes
/// first, then replies and stream messages, then the timer (STYLE: pure core, imperative shell).
///
/// Writes are committed off the loop by a ``Committer``; the messages that must wait for them are held per
/// connection, in the order the core produced them, and released when the writes they wait for are stored
/// (R10–R12). Connections with nothing held are served at once.
///
/// Loop-bound: every method runs on the server's one event loop, which is what protects the core.
final class SessionManager: VarlinkServerDelegate {
    private(set) var core: LocationCore
    private var manifests: [String: Manifest]
    private var identity: PeerIdentity
    /// Which refusals are logged in full, and the count of the others (I6).
    private var refusals = RefusalLog()
    private let clock = DaemonClock()
    private let eventLoop: EventLoop
    private let logger: Logger
    /// Whether lifecycle events are logged: the level is set once, at start, and asking the log handler for
    /// it at every write cost more than the check. Below info nothing is written, nor worth remembering.
    private let journals: Bool
    private let facts: DaemonFacts
    /// The location provider, started and stopped by the core's `provider(running:)` actions (U3).
    private let provider: ProviderSupervisor
    private var connections: [UInt64: VarlinkConnection] = [:]
    /// Set by ``beginStopping()``.
    private var isStopping = false
    /// The monitor name of each `MonitorEvents` stream, for its events, by connection then call: a closing
    /// connection drops its own at once, without a pass over every connection's (F6).
    private var monitorNames: [UInt64: [UInt64: String]] = [:]
    private var timer: Scheduled<Void>?
    private let committer: Committer?
    private let limits: CommitLimits
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
    private var undurableDecisions: [String: UInt64] = [:]
    private var undurableSwitch: UInt64 = 0
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
    /// Writes past which a turn's batch is committed at once rather than at the end of the turn.
    private static let largeBatch = 256
    private var isFlushing = false
    /// Sessions and shown prompts already logged as created, so updates are not logged again.
    private var loggedSessions: Set<SessionID> = []
    private var loggedPrompts: Set<PromptID> = []
    /// `Admin.Reload` calls waiting for the reload they started to finish.
    private var pendingReloads: [(connection: VarlinkConnection, serial: UInt64)] = []
    /// Starts a reload the way `SIGHUP` does; the daemon sets it and calls ``reloadFinished(refusal:)``.
    var requestReload: (() -> Void)?

    init(
        core: LocationCore,
        manifests: [Manifest],
        adminGroup: String,
        store: StateStore?,
        limits: CommitLimits = CommitLimits(),
        facts: DaemonFacts,
        provider: ProviderSupervisor,
        eventLoop: EventLoop,
        logger: Logger
    ) {
        self.core = core
        self.manifests = Dictionary(manifests.map { ($0.appID, $0) }, uniquingKeysWith: { $1 })
        self.identity = PeerIdentity(adminGroup: adminGroup)
        committer = store.map { Committer(store: $0) }
        self.limits = limits
        self.facts = facts
        self.provider = provider
        self.eventLoop = eventLoop
        self.logger = logger
        journals = logger.logLevel <= .info
    }

    // MARK: VarlinkServerDelegate

    func opened(_ connection: VarlinkConnection) {
        connections[connection.id] = connection
        run(.connected(ClientID(connection.id), pid: connection.credentials?.pid ?? 0))
    }

    func received(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection) {
        if call.method == "io.locd.Admin.Reload" { return reloadCalled(call, serial: serial, on: connection) }
        let decoded: Call
        switch CallDecoder.decode(call) {
        case .failure(let error): return connection.fail(serial, error)
        case .success(let method): decoded = method
        }
        if call.interface == "io.locd.Admin", let refusal = identity.refusalToAdminister(peer: connection.credentials) {
            return refuse(call, serial: serial, on: connection, refusal)
        }
        if case .hello(let appID, _) = decoded, let manifest = manifests[appID],
            let refusal = identity.refusal(
                toSpeakFor: manifest,
                peer: connection.credentials,
                sender: connection.sender(of: serial)
            )
        {
            return refuse(call, serial: serial, on: connection, refusal)
        }
        if pendingWrites >= limits.maxPendingWrites && !decoded.writesNothing {
            return connection.fail(serial, storeBehind)
        }
        if case .monitorEvents(let monitor) = decoded {
            monitorNames[connection.id, default: [:]][serial] = monitor
        }
        run(.call(CallID(client: ClientID(connection.id), serial: serial), decoded))
    }

    /// Whether the peer may call `io.locd.Admin` (I3): such peers may also use the connections of `admin-reserve`.
    func mayAdminister(_ peer: PeerCredentials) -> Bool {
        identity.refusalToAdminister(peer: peer) == nil
    }

    func closed(_ connection: VarlinkConnection) {
        connections.removeValue(forKey: connection.id)
        held.drop(connection.id)
        monitorNames.removeValue(forKey: connection.id)
        // Connections closed by locd's own stop are not apps ending: the store keeps the state as it was, so
        // that a restart resumes it exactly as after a crash (R2, R3), grace deadlines and all.
        guard !isStopping else { return }
        run(.disconnected(ClientID(connection.id)))
    }

    /// From here on locd is stopping: closing connections changes nothing in the core or the store.
    func beginStopping() {
        isStopping = true
        // The refusals counted so far are logged now, not lost with the windows' timers.
        for (key, count) in refusals.closeAll() { logRefusals(key, count: count) }
    }

    /// Answers `PermissionDenied` with what to do, and logs why (I7); a flood of refusals is logged as a count
    /// (I6).
    private func refuse(
        _ call: VarlinkCall,
        serial: UInt64,
        on connection: VarlinkConnection,
        _ refusal: PeerIdentity.Refusal
    ) {
        let peer = connection.credentials
        let app = call.parameters["appId"]?.stringValue ?? ""
        let key = RefusalLog.Key(
            uid: peer?.uid ?? UInt32.max,
            method: call.method,
            app: call.memberName == "Hello" ? app : ""
        )
        let (log, opened) = refusals.record(key)
        if log {
            logger.warning(
                "refused \(call.method): \(refusal.reason)",
                metadata: MessageID.permissionDenied.metadata.merging([
                    "locd.pid": "\(peer?.pid ?? 0)", "locd.uid": "\(peer?.uid ?? 0)",
                    "locd.app": "\(app)",
                ]) { $1 }
            )
        }
        if opened {
            eventLoop.assumeIsolated().scheduleTask(in: .seconds(RefusalLog.window)) { [self] in
                logRefusals(key, count: refusals.close(key))
            }
        }
        connection.fail(serial, LocationError.permissionDenied(reason: refusal.answer).varlinkError)
    }

    /// The summary of a window of refusals (I6).
    private func logRefusals(_ key: RefusalLog.Key, count: Int) {
        guard count > 0 else { return }
        logger.warning(
            "refused \(key.method) \(count) more times for uid \(key.uid) in the last \(RefusalLog.window) s",
            metadata: MessageID.permissionDenied.metadata.merging([
                "locd.uid": "\(key.uid)", "locd.app": "\(key.app)", "locd.refusals": "\(count)",
            ]) { $1 }
        )
    }

    // MARK: Running the core

    /// Hands one event to the core and carries out what it returns.
    func run(_ event: Event) {
        let actions = core.handle(event, at: clock.now())
        if case .call = event { perform(actions, answersCall: true) } else { perform(actions, answersCall: false) }
    }

    /// `Admin.Reload`: the shell's business, not the core's, so it is answered here: the reload runs on
    /// the `SIGHUP` path and the reply waits for it, so a caller that reads state next sees the new one.
    private func reloadCalled(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection) {
        if let refusal = identity.refusalToAdminister(peer: connection.credentials) {
            return refuse(call, serial: serial, on: connection, refusal)
        }
        if let unknown = call.parameters.keys.first {
            return connection.fail(
                serial,
                .invalidParameter(unknown, message: "Reload takes no parameters; call it with {}")
            )
        }
        guard let requestReload else {
            return connection.fail(serial, .methodNotFound("io.locd.Admin.Reload"))
        }
        pendingReloads.append((connection, serial))
        if pendingReloads.count == 1 { requestReload() }
    }

    /// Answers the `Admin.Reload` calls waiting for a reload: `refusal` names the file, line and key
    /// of a configuration that does not load, which changed nothing (M2).
    func reloadFinished(refusal: String?) {
        let waiting = pendingReloads
        pendingReloads = []
        for (connection, serial) in waiting {
            if let refusal {
                let message = "\(refusal); fix it and reload again (locd keeps running the configuration it had)"
                connection.fail(serial, .invalidParameter("config", message: message))
            } else {
                connection.reply(serial)
            }
        }
    }

    /// Reloaded manifests and settings (M2); the caller has validated them.
    func reload(manifests: [Manifest], configuration: CoreConfiguration, adminGroup: String) {
        self.manifests = Dictionary(manifests.map { ($0.appID, $0) }, uniquingKeysWith: { $1 })
        identity.adminGroup = adminGroup
        run(.reload(manifests: manifests, configuration: configuration))
    }

    /// Collects an event's actions into the batch of this event-loop turn; timers act at once.
    ///
    /// The event's messages wait for its writes if one is a decision (R1: its reply, and every stream value
    /// that shows it, R12), or a session the event's reply acknowledges (R2: a call's). A session written
    /// by a disconnect or a deadline acknowledges nothing, and what streams say of it need not wait.
    private func perform(_ actions: [Action], answersCall: Bool) {
        let first = batchMessages.count
        var waits = false
        for action in actions {
            switch action {
            case .persist(let write):
                batchWrites.append(write)
                waits = waits || write.isDecision || (answersCall && write.isSession)
                journal(write)
            case .armTimer(let instant): arm(instant)
            case .provider(let running): provider.setRunning(running)
            default: batchMessages.append(action)
            }
        }
        // Only this event's messages wait for its writes, not those of the turn's other events (R10).
        batchMessageWaits.append(contentsOf: repeatElement(waits, count: batchMessages.count - first))
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
                case .record(let appID, _): undurableDecisions[appID] = lastTurn
                case .locationServices: undurableSwitch = lastTurn
                default: break
                }
            }
            openBatch.append(writes, turn: lastTurn)
            commitNext()
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
        guard turn != 0 || appsWait || !held.isEmpty else { return send(messages) }
        var now: [Action] = []
        for (action, waitsForTurn) in zip(messages, waits) {
            guard let client = action.client else { continue }
            var message = HeldMessage(turn: waitsForTurn ? turn : 0, decision: 0, action: action)
            if appsWait, let appID = core.appID(of: client) {
                message.decision = max(undurableDecisions[appID] ?? 0, undurableSwitch)
            }
            let waiting = held.count(of: client.raw)
            if waiting == 0 && isReleased(message) {
                now.append(action)
            } else {
                hold(message, for: client.raw, behind: waiting)
            }
        }
        send(now)
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
            connections[client]?.close()
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
        send(ready)
    }

    // MARK: Committing

    /// Writes not yet stored: those the committer has or that wait for a retry, and those gathered since.
    private var pendingWrites: Int { openBatch.writes.count + (committing?.writes.count ?? 0) }

    /// The refusal of a call that may write while `max-pending-writes` writes wait for the store (R13).
    private var storeBehind: VarlinkError {
        VarlinkError(
            name: "io.locd.App.LimitExceeded",
            parameters: [
                "limit": .string("max-pending-writes"), "maximum": .int(Int64(limits.maxPendingWrites)),
                "message": .string(
                    "locd's store is \(pendingWrites) writes behind (max-pending-writes is "
                        + "\(limits.maxPendingWrites)): retry once Admin.Status reports storeHealthy, and check "
                        + "the disk of state-dir"
                ),
            ]
        )
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
                run(.storeHealth(healthy: true))
            }
            releaseHeld()
            commitNext()
            if committing == nil { finishDrains() }
        case .failure(let error):
            if storeHealthy {
                logger.error("store write failed, serving from memory and retrying: \(error)")
                storeHealthy = false
                // Monitors report persistenceUnavailable (U4); the core's messages go out with the next batch.
                run(.storeHealth(healthy: false))
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
        return promise.futureResult
    }

    private func finishDrains() {
        let waiting = drains
        drains = []
        for promise in waiting { promise.succeed(()) }
    }

    /// Lifecycle events as structured log entries: `LOCD_APP`, `LOCD_SESSION` and a fixed `MESSAGE_ID`.
    private func journal(_ write: Persist) {
        guard journals else { return }
        switch write {
        case .record(let appID, let record):
            logger.info(
                "authorization of \(appID): \(record.status.rawValue) (\(record.settingsLabel.rawValue))",
                metadata: MessageID.authorizationChanged.metadata.merging(["locd.app": "\(appID)"]) { $1 }
            )
        case .session(let session) where loggedSessions.insert(session.id).inserted:
            logger.info(
                "session \(session.id) of \(session.appID): \(session.kind.rawValue) \(session.requirement.rawValue)",
                metadata: MessageID.sessionCreated.metadata.merging([
                    "locd.app": "\(session.appID)", "locd.session": "\(session.id)",
                ]) { $1 }
            )
        case .sessionRemoved(_, let id):
            loggedSessions.remove(id)
            logger.info(
                "session \(id) ended",
                metadata: MessageID.sessionEnded.metadata.merging(["locd.session": "\(id)"]) { $1 }
            )
        case .prompt(let prompt) where prompt.raisedAt != nil && loggedPrompts.insert(prompt.id).inserted:
            logger.info(
                "prompt \(prompt.id) (\(prompt.kind.rawValue)) shown for \(prompt.appID)",
                metadata: MessageID.promptRaised.metadata.merging(["locd.app": "\(prompt.appID)"]) { $1 }
            )
        case .promptRemoved(let id):
            loggedPrompts.remove(id)
            logger.info("prompt \(id) resolved", metadata: MessageID.promptResolved.metadata)
        case .locationServices(let enabled):
            logger.notice("location services \(enabled ? "on" : "off")")
        default:
            break
        }
    }

    private func arm(_ instant: Instant?) {
        timer?.cancel()
        timer = nil
        guard let instant else { return }
        let delay = max(0, instant.since(clock.now()).nanoseconds)
        // One nanosecond late rather than early: the core re-checks against the time it is given (L6).
        timer = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(delay + 1)) { [self] in
            timer = nil
            run(.deadlineReached)
        }
    }

    // MARK: Encoding

    private func send(_ messages: [Action]) {
        // A state change reaches every stream that sees it with the same bytes: each distinct message is
        // encoded once per batch and the frame shared (10,000 diagnostics after a switch, one encoding).
        var shared: [StreamMessage: VarlinkEncodedReply] = [:]
        for action in messages {
            switch action {
            case .reply(let call, let reply):
                connections[call.client.raw]?.reply(call.serial, encode(reply))
            case .fail(let call, let error):
                connections[call.client.raw]?.fail(call.serial, error.varlinkError)
            case .emit(let call, let message):
                guard let connection = connections[call.client.raw], connection.currentCall == call.serial else {
                    continue
                }
                let encoded: VarlinkEncodedReply
                if message.isSameForEveryStream {
                    if let frame = shared[message] {
                        encoded = frame
                    } else {
                        encoded = encode(message, call: call)
                        shared[message] = encoded
                    }
                } else {
                    encoded = encode(message, call: call)
                }
                connection.reply(call.serial, encoded, backlog: message.backlog)
            case .end(let call, let message):
                if monitorNames[call.client.raw]?.removeValue(forKey: call.serial) != nil,
                    monitorNames[call.client.raw]?.isEmpty == true
                {
                    monitorNames.removeValue(forKey: call.client.raw)
                }
                let final = message.map { parameters(of: $0, call: call) } ?? [:]
                connections[call.client.raw]?.reply(call.serial, final)
            case .persist, .armTimer, .provider:
                break
            }
        }
    }

    private func encode(_ message: StreamMessage, call: CallID) -> VarlinkEncodedReply {
        if case .event(let event) = message { return event.frame(timestamp: clock.unixTime(of: event.at)) }
        return VarlinkEncodedReply(VarlinkReply(parameters: parameters(of: message, call: call), continues: true))
    }

    /// A reply's frame. The two every churning client gets are not built as objects: `InvalidateSession`'s
    /// empty reply is encoded once and shared, and a session is written straight into its frame.
    private func encode(_ reply: Reply) -> VarlinkEncodedReply {
        let parameters: JSONObject
        switch reply {
        case .empty:
            return .empty
        case .session(let session):
            return session.replyFrame
        case .hello(let authorization, let lingering):
            parameters = ["authorization": authorization.json, "lingeringSessions": .array(lingering.map(\.json))]
        case .authorization(let authorization):
            parameters = ["authorization": authorization.json]
        case .sessions(let sessions):
            parameters = ["sessions": .array(sessions.map(\.json))]
        case .apps(let apps):
            parameters = ["apps": .array(apps.map(\.json))]
        case .status(let status):
            parameters = ["status": daemonStatus(status)]
        }
        return VarlinkEncodedReply(VarlinkReply(parameters: parameters))
    }

    private func parameters(of message: StreamMessage, call: CallID) -> JSONObject {
        switch message {
        case .authorization(let authorization):
            return ["authorization": authorization.json]
        case .diagnostic(let mask, let ended):
            return ["diagnostic": mask.json, "ended": .bool(ended)]
        case .update(let mask, let location):
            var update: JSONObject = [:]
            if let location { update["location"] = location.json }
            update["diagnostic"] = mask.json
            return ["update": .object(update)]
        case .monitor(let mask):
            return [
                "event": .object([
                    "monitor": .string(monitorNames[call.client.raw]?[call.serial] ?? ""), "identifier": .string(""),
                    "state": .string("unknown"), "date": .double(clock.unixNow()), "diagnostic": mask.json,
                ])
            ]
        case .monitorCondition(let event):
            return ["event": event.json(now: clock.unixNow())]
        case .prompt(let prompt):
            return ["prompt": prompt.json(clock: clock)]
        case .withdrawn(let id):
            return ["withdrawn": .string(id.description)]
        case .event(let event):
            return ["event": event.json(timestamp: clock.unixTime(of: event.at))]
        }
    }

    private func daemonStatus(_ status: CoreStatus) -> JSONValue {
        .object([
            "version": .string(facts.version),
            "pid": .int(Int64(facts.pid)),
            "uptimeSeconds": .double(clock.now().since(facts.startedAt).seconds),
            "locationServicesEnabled": .bool(status.locationServicesEnabled),
            "provider": provider.status(
                running: core.isProviderRunning,
                hasFix: core.providerReportsFix,
                lastFix: core.newestFix
            ),
            "storeHealthy": .bool(storeHealthy),
            "apps": .int(Int64(status.apps)),
            "clients": .int(Int64(status.clients)),
            "sessions": .int(Int64(status.sessions)),
            "lingeringSessions": .int(Int64(status.lingeringSessions)),
            "pendingPrompts": .int(Int64(status.pendingPrompts)),
            "agents": .int(Int64(status.agents)),
            "appsUsingLocation": .array(status.appsUsingLocation.map { .string($0) }),
            "appsUsingLocationInBackground": .array(status.appsUsingLocationInBackground.map { .string($0) }),
        ])
    }
}

extension StreamMessage {
    /// Whether the message's text depends on nothing but the message: no stream name, no clock.
    fileprivate var isSameForEveryStream: Bool {
        switch self {
        case .authorization, .diagnostic, .update: true
        case .monitor, .monitorCondition, .prompt, .withdrawn, .event: false
        }
    }

    /// What a lagging reader's connection may hold back of this message (PROTOCOL "Limits"): state is
    /// coalesced to its newest value, updates keep `max-queued-updates`, and events are never dropped.
    fileprivate var backlog: StreamBacklog {
        switch self {
        case .authorization, .diagnostic, .monitor: .keepNewest
        case .update: .dropOldest
        case .monitorCondition, .prompt, .withdrawn, .event: .keepAll
        }
    }
}

extension Action {
    /// The connection a reply or stream message goes to.
    fileprivate var client: ClientID? {
        switch self {
        case .reply(let call, _), .fail(let call, _), .emit(let call, _), .end(let call, _): call.client
        case .persist, .armTimer, .provider: nil
        }
    }
}

extension Call {
    /// Whether the call only reads: it is answered even while `max-pending-writes` writes wait (R13).
    fileprivate var writesNothing: Bool {
        switch self {
        case .getAuthorization, .watchAuthorization, .listSessions, .sessionDiagnostics, .status, .listApps,
            .adminListSessions:
            true
        default: false
        }
    }
}

extension Persist {
    fileprivate var isSession: Bool {
        if case .session = self { return true }
        return false
    }
}
