import JSON
import LocationCore
import LocationProtocol
import Logging
import NIOCore
import SubordinateRanges
import SystemdSupport
import Varlink

/// The daemon's shell: decode a call, hand it to the core, then carry out the actions — store writes
/// first, then replies and stream messages, then the timer (STYLE: pure core, imperative shell).
///
/// It keeps the connections and dispatches calls; the ``WriteBehind`` commits writes off the loop and holds the
/// messages that must wait for them (R10–R12), the ``ReplyEncoder`` writes the frames, and the
/// ``LifecycleJournal`` logs what is stored.
///
/// Loop-bound: every method runs on the server's one event loop, which is what protects the core.
final class SessionManager: VarlinkServerDelegate, WriteBehindDelegate {
    private(set) var core: LocationCore
    private var manifests: [String: Manifest]
    private var identity: PeerIdentity
    /// Which refusals are logged in full, and the count of the others (I6).
    private var refusals = RefusalLog()
    private let clock = DaemonClock()
    private let eventLoop: EventLoop
    private let logger: Logger
    /// The wire frames of replies and stream messages.
    private let encoder: ReplyEncoder
    /// The journal lines of what is stored.
    private var journal: LifecycleJournal
    /// The location provider, started and stopped by the core's `provider(running:)` actions (U3).
    private let provider: ProviderSupervisor
    private var connections: [UInt64: VarlinkConnection] = [:]
    /// Set by ``beginStopping()``.
    private var isStopping = false
    /// The monitor name of each `MonitorEvents` stream, for its events, by connection then call: a closing
    /// connection drops its own at once, without a pass over every connection's (F6).
    private var monitorNames: [UInt64: [UInt64: String]] = [:]
    private var timer: Scheduled<Void>?
    /// Store writes, committed off the loop, and the messages that wait for them (R10–R13).
    private let writeBehind: WriteBehind
    /// The ranges of subordinate uids as read, with their lines for the log; the core counts by their table (H9).
    private var subordinateIDs: SubordinateIDs
    /// The uids of subordinate ranges asked of the system for an account of their own, for this configuration (H9).
    private var accountLookup = AccountLookup()
    /// `Admin.Reload` calls waiting for the reload they started to finish.
    private var pendingReloads: [(connection: VarlinkConnection, serial: UInt64)] = []
    /// Starts a reload the way `SIGHUP` does; the daemon sets it and calls ``reloadFinished(refusal:)``.
    var requestReload: (() -> Void)?

    /// - Parameter subordinateIDs: the ranges `core`'s configuration counts by, as read (H9).
    init(
        core: LocationCore,
        manifests: [Manifest],
        subordinateIDs: SubordinateIDs = SubordinateIDs(),
        adminGroup: String,
        brokers: [Broker] = [],
        store: StateStore?,
        limits: CommitLimits = CommitLimits(),
        facts: DaemonFacts,
        provider: ProviderSupervisor,
        eventLoop: EventLoop,
        logger: Logger
    ) {
        self.core = core
        self.subordinateIDs = subordinateIDs
        self.manifests = Dictionary(manifests.map { ($0.appID, $0) }, uniquingKeysWith: { $1 })
        self.identity = PeerIdentity(adminGroup: adminGroup, brokers: brokers)
        writeBehind = WriteBehind(
            committer: store.map { Committer(store: $0) },
            limits: limits,
            eventLoop: eventLoop,
            logger: logger
        )
        encoder = ReplyEncoder(clock: clock, facts: facts)
        journal = LifecycleJournal(logger: logger)
        self.provider = provider
        self.eventLoop = eventLoop
        self.logger = logger
        writeBehind.delegate = self
    }

    // MARK: VarlinkServerDelegate

    func opened(_ connection: VarlinkConnection) {
        connections[connection.id] = connection
        let peer = connection.credentials
        // H4: whether its io.locd.Admin calls reach every user's apps is fixed by the credentials of connect (I3).
        let administrator = peer.map(mayAdminister) ?? false
        run(.connected(ClientID(connection.id), pid: peer?.pid ?? 0, uid: peer?.uid, administrator: administrator))
    }

    func received(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection) {
        if call.method == AdminMethod.reload.name { return reloadCalled(call, serial: serial, on: connection) }
        var decoded: Call
        switch CallDecoder.decode(call) {
        case .failure(let error): return connection.fail(serial, error)
        case .success(let method): decoded = method
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
        if case .brokeredHello(let appID, let state, let process, let description, _) = decoded {
            let checked = identity.check(
                broker: appID,
                manifest: manifests[appID],
                process: process,
                peer: connection.credentials,
                sender: connection.sender(of: serial),
                descriptors: connection.descriptors(of: serial)
            )
            switch checked {
            case .failure(let refusal): return refuse(call, serial: serial, on: connection, refusal)
            case .success(let uid):
                // The app's connection from now on, held to its uid's limits, not the broker's (F11, I8).
                if let limit = connection.speaks(forUID: uid, pid: process) {
                    connection.fail(serial, limit)
                    return connection.close()
                }
                // The app a broker's Hello makes is the process's uid's, never the broker's (F20).
                decoded = .brokeredHello(
                    appID: appID,
                    state: state,
                    process: process,
                    description: description,
                    uid: uid
                )
            }
        }
        if writeBehind.pendingWrites >= writeBehind.limits.maxPendingWrites && !decoded.writesNothing {
            return connection.fail(serial, storeBehind)
        }
        if case .monitorEvents(let monitor) = decoded {
            monitorNames[connection.id, default: [:]][serial] = monitor
        }
        run(.call(CallID(client: ClientID(connection.id), serial: serial), decoded), name: call.method)
    }

    /// Whether the peer may call `io.locd.Admin` (I3): such peers may also use the connections of `admin-reserve`.
    /// The calls the Varlink server has run since it started, for `Admin.Status` (F19).
    var callsRun: () -> UInt64 = { 0 }

    func mayAdminister(_ peer: PeerCredentials) -> Bool {
        identity.refusalToAdminister(peer: peer) == nil
    }

    func closed(_ connection: VarlinkConnection) {
        connections.removeValue(forKey: connection.id)
        writeBehind.drop(connection.id)
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
        audit(key, "refused \(call.method): \(refusal.reason)", pid: peer?.pid ?? 0, app: app)
        connection.fail(serial, LocationError.permissionDenied(reason: refusal.answer).varlinkError)
    }

    /// I6: a refusal is logged in full the first time in a window for its uid and method, then counted, and the
    /// count logged when the window ends.
    private func audit(_ key: RefusalLog.Key, _ line: @autoclosure () -> String, pid: Int32, app: String) {
        let (log, opened) = refusals.record(key)
        if log {
            logger.warning(
                "\(line())",
                metadata: MessageID.permissionDenied.metadata.merging([
                    "locd.pid": "\(pid)", "locd.uid": "\(key.uid)", "locd.app": "\(app)",
                ]) { $1 }
            )
        }
        if opened {
            eventLoop.assumeIsolated().scheduleTask(in: .seconds(RefusalLog.window)) { [self] in
                logRefusals(key, count: refusals.close(key))
            }
        }
    }

    /// The summary of a window of refusals (I6).
    private func logRefusals(_ key: RefusalLog.Key, count: Int) {
        guard count > 0 else { return }
        let limit = key.limit.isEmpty ? "" : " at \(key.limit)"
        logger.warning(
            "refused \(key.method)\(limit) \(count) more times for uid \(key.uid) in the last \(RefusalLog.window) s",
            metadata: MessageID.permissionDenied.metadata.merging([
                "locd.uid": "\(key.uid)", "locd.app": "\(key.app)", "locd.refusals": "\(count)",
            ]) { $1 }
        )
    }

    // MARK: Running the core

    /// Hands one event to the core and carries out what it returns.
    /// - Parameter name: the call's Varlink method, which a refusal the core answers is logged under (I6, H4).
    func run(_ event: Event, name: String = "") {
        let actions = core.handle(event, at: clock.now())
        if case .call = event {
            perform(actions, answersCall: true, method: name)
        } else {
            perform(actions, answersCall: false)
        }
    }

    /// A call the core refused, logged as the shell's refusals are (I6): in full once per uid and method per 10 s,
    /// then as a count. A `Hello` refused at `max-apps-per-uid` is counted per uid, not per app (F20), so that a
    /// flood of invented app ids writes two lines per window.
    private func log(_ refusal: Refusal, of call: CallID, method: String) {
        let pid = connections[call.client.raw]?.credentials?.pid ?? 0
        switch refusal {
        case .denied(let reason, let uid):
            let key = RefusalLog.Key(uid: uid ?? UInt32.max, method: method, app: "")
            audit(key, "refused \(method): \(reason)", pid: pid, app: "")
        case .appLimit(let appID, let uid, let process, let maximum):
            let limit = "max-apps-per-uid"
            let app = process.map { "\(appID) (process \($0), through a broker)" } ?? appID
            let key = RefusalLog.Key(uid: uid, method: method, app: "", limit: limit)
            audit(
                key,
                "refused \(method) for \(app): uid \(uid) already has \(maximum) apps (\(limit)); "
                    + "locctl forget --user \(uid) forgets them",
                pid: pid,
                app: app
            )
        }
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
            return connection.fail(serial, .methodNotFound(AdminMethod.reload.name))
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
    /// - Parameter subordinateIDs: the ranges `configuration` counts by, as read (H9).
    func reload(
        manifests: [Manifest],
        configuration: CoreConfiguration,
        subordinateIDs: SubordinateIDs,
        adminGroup: String,
        brokers: [Broker]
    ) {
        self.manifests = Dictionary(manifests.map { ($0.appID, $0) }, uniquingKeysWith: { $1 })
        identity.adminGroup = adminGroup
        identity.brokers = brokers
        // H9: the system is asked afresh; the accounts found in the old ranges are asked again at once, so that
        // what they hold stays counted as theirs.
        var configuration = configuration
        self.subordinateIDs = subordinateIDs
        accountLookup = AccountLookup()
        for uid in core.configuration.subordinateIDs.accounts {
            let (_, found) = accountLookup.counted(uid, in: self.subordinateIDs)
            guard let found else { continue }
            self.subordinateIDs.addAccount(uid)
            configuration.subordinateIDs.addAccount(uid)
            logger.warning("\(self.subordinateIDs.overlap(uid: uid, name: nil, found))")
        }
        run(.reload(manifests: manifests, configuration: configuration))
    }

    /// H9: the uid a connection of `uid` counts as against the per-uid bounds. A uid in a subordinate range is asked
    /// of the system once per configuration whether it has an account of its own (then it counts as itself, and
    /// that is logged); any other uid costs a binary search of the ranges.
    func countedUID(_ uid: UInt32) -> UInt32 {
        let (counted, found) = accountLookup.counted(uid, in: subordinateIDs)
        if let found {
            subordinateIDs.addAccount(uid)
            core.accountFound(uid)
            logger.warning("\(subordinateIDs.overlap(uid: uid, name: nil, found))")
        }
        return counted
    }

    /// Carries out an event's actions: journals its writes, arms the timer, starts or stops the provider, and
    /// hands writes and messages to the write-behind, which sends each message at once or once the writes it
    /// waits for are stored (R1, R2, R10–R12).
    /// - Parameter method: the Varlink method of the call the event is, for the refusals it logs.
    private func perform(_ actions: [Action], answersCall: Bool, method: String = "") {
        for action in actions {
            switch action {
            case .persist(let write): journal.record(write)
            case .armTimer(let instant): arm(instant)
            case .provider(let running): provider.setRunning(running)
            case .nobodyToAsk(let app): journal.nobodyToAsk(app)
            case .overruled(let app, let desktop): journal.overruled(app, desktop: desktop)
            case .carriedOver(let app): journal.carriedOver(app)
            case .refused(let call, let refusal): log(refusal, of: call, method: method)
            default: break
            }
        }
        writeBehind.add(actions, answersCall: answersCall)
    }

    /// The refusal of a call that may write while `max-pending-writes` writes wait for the store (R13).
    private var storeBehind: VarlinkError {
        let maximum = writeBehind.limits.maxPendingWrites
        return VarlinkError(
            name: WireErrorName.limitExceeded.name,
            parameters: [
                "limit": .string("max-pending-writes"), "maximum": .int(Int64(maximum)),
                "message": .string(
                    "locd's store is \(writeBehind.pendingWrites) writes behind (max-pending-writes is "
                        + "\(maximum)): retry once Admin.Status reports storeHealthy, and check "
                        + "the disk of state-dir"
                ),
            ]
        )
    }

    /// Commits what is gathered or waiting for a retry, once, before locd stops; the future completes when the
    /// last batch is stored or has failed (then it is lost, as in a crash, and nothing acknowledged it).
    func finishCommits() -> EventLoopFuture<Void> {
        writeBehind.finishCommits()
    }

    /// How long after a wake-up the next one runs when the core asks for one at once (F21): NIO runs every task that
    /// is ready before it looks at its sockets again, so a timer due at once would run every batch of a burst back to
    /// back; one that is due a moment later lets the loop read and answer the calls that came meanwhile first.
    static let batchYield = TimeAmount.microseconds(50)

    private func arm(_ instant: Instant?) {
        timer?.cancel()
        timer = nil
        guard let instant else { return }
        let delay = instant.since(clock.now()).nanoseconds
        // One nanosecond late rather than early: the core re-checks against the time it is given (L6).
        let wait = delay > 0 ? TimeAmount.nanoseconds(delay + 1) : Self.batchYield
        timer = eventLoop.assumeIsolated().scheduleTask(in: wait) { [self] in
            timer = nil
            run(.deadlineReached)
        }
    }

    // MARK: WriteBehindDelegate

    func send(_ messages: [Action]) {
        var shared: [StreamMessage: VarlinkEncodedReply] = [:]
        for action in messages {
            switch action {
            case .reply(let call, let reply):
                connections[call.client.raw]?.reply(call.serial, encoder.encode(reply, status: daemonStatus))
            case .fail(let call, let error):
                connections[call.client.raw]?.fail(call.serial, error.varlinkError)
            case .emit(let call, let message):
                guard let connection = connections[call.client.raw], connection.currentCall == call.serial else {
                    continue
                }
                let encoded = encoder.encode(message, sharing: &shared, monitor: monitorName(call))
                connection.reply(call.serial, encoded, backlog: message.backlog)
            case .end(let call, let message):
                if monitorNames[call.client.raw]?.removeValue(forKey: call.serial) != nil,
                    monitorNames[call.client.raw]?.isEmpty == true
                {
                    monitorNames.removeValue(forKey: call.client.raw)
                }
                let final = message.map { encoder.parameters(of: $0, monitor: monitorName(call)) } ?? [:]
                connections[call.client.raw]?.reply(call.serial, final)
            case .persist, .armTimer, .provider, .nobodyToAsk, .overruled, .carriedOver, .speaksFor, .refused:
                break
            }
        }
    }

    func close(_ client: UInt64) {
        connections[client]?.close()
    }

    func storeHealthChanged(healthy: Bool) {
        run(.storeHealth(healthy: healthy))
    }

    /// The monitor name of a `MonitorEvents` stream, for its events.
    private func monitorName(_ call: CallID) -> String {
        monitorNames[call.client.raw]?[call.serial] ?? ""
    }

    private func daemonStatus(_ status: CoreStatus) -> JSONValue {
        encoder.daemonStatus(
            status,
            provider: provider.status(
                running: core.isProviderRunning,
                hasFix: core.providerReportsFix,
                lastFix: core.newestFix
            ),
            providers: provider.statuses(running: core.isProviderRunning),
            lastFixFrom: provider.lastFixSource,
            storeHealthy: writeBehind.storeHealthy,
            calls: callsRun()
        )
    }
}

extension StreamMessage {
    /// What a lagging reader's connection may hold back of this message (PROTOCOL "Limits"): state is
    /// coalesced to its newest value, updates keep `max-queued-updates`, and events are never dropped.
    fileprivate var backlog: StreamBacklog {
        switch self {
        case .authorization, .diagnostic, .monitor: .keepNewest
        case .update: .dropOldest
        case .monitorCondition, .prompt, .withdrawn, .agentCounted, .event, .decided: .keepAll
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
