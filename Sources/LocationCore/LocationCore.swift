/// The rules of SEMANTICS.md as a deterministic state machine: events in, actions out.
///
/// The core never reads a clock, sleeps, logs or touches a file or socket. Each ``handle(_:at:)``
/// first re-checks every deadline that has passed (L6), then applies the event, then reports the
/// diagnostics that changed and the next instant it wants to be woken at.
package struct LocationCore {
    package internal(set) var configuration: CoreConfiguration
    package internal(set) var locationServicesEnabled: Bool
    let epoch: UInt32
    var nextSessionNumber: UInt64 = 1
    var nextPromptNumber: UInt64 = 1

    /// Apps by handle and sessions by slot: a call hashes a name once, then reaches state by integer.
    var apps = AppTable()
    /// How many apps each uid has (F20, H8), a subordinate uid's counted as its user's (H9); a uid that has none is
    /// absent.
    var ownedApps: [UInt32: Int] = [:]
    /// An administrator's setting of an app for every user, by app id (H5).
    var policies: [String: AppPolicy] = [:]
    /// The users who turned location services off for themselves (H6).
    var usersWithServicesOff: Set<UInt32> = []
    /// How many live sessions each user's apps hold together (H8), a subordinate uid's counted as its user's (H9); a
    /// user with none is absent.
    var sessionsByUser: [UInt32: Int] = [:]
    var sessions: SessionTable
    var prompts: [PromptID: PromptEntry] = [:]
    var clients: [ClientID: ClientEntry] = [:]
    var streams: [CallID: StreamEntry] = [:]
    /// `Prompts` streams, each with the scope of its caller: it is offered the prompts of the apps in it (H7).
    var agents: [CallID] = []
    /// `Watch` streams; each sees the events of its caller's scope (H4).
    var watchers: [CallID] = []
    /// The agents of administrators that asked for every user's prompts (H7), each with the only users it answers
    /// for when it named them (`nil`: every user).
    var everyoneAgents: [CallID: Set<UInt32>?] = [:]
    /// Each app's monitored conditions (U4), and which app and monitor each `MonitorEvents` stream shows.
    var conditions: [Int: MonitorConditions] = [:]
    var monitorStreams: [CallID: (app: Int, monitor: String)] = [:]
    /// Whether the records restored from a store are still to be checked for L14's carry-over.
    var restoredRecordsUnchecked = false
    /// Each user's desktop source and its latest report (L11).
    var desktops: [UInt32: DesktopReport] = [:]

    var providerHasFix = false
    /// The provider's newest fix, kept after the fix is lost so that status can show when it was.
    var lastFix: Fix?
    /// D10, derived from the fixes.
    var stationary = StationaryDetector()
    /// Whether the store takes writes; monitors report `persistenceUnavailable` while it does not (U4).
    var storeHealthy = true
    /// The position the next new monitored condition gets (``MonitorConditions/Entry/position``).
    var nextConditionPosition: Int64 = 1
    var providerRunning = false
    /// Sessions with a requirement of at least `whenInUse`, and location streams: the provider's demand (U3).
    var demandingSessions = 0
    var openLocationStreams = 0

    var deadlines = DeadlineHeap()
    var armedTimer: Instant?
    /// Set when the event's batch of deadlines stopped with more due (F21): the timer is armed again at once.
    var deadlinesLeftDue = false

    // Scratch of the event being handled.
    var now = Instant.zero
    /// The connection whose call is being handled and its process, found once per call.
    var caller = (client: ClientID(0), pid: Int32(0))
    var persisted: [Action] = []
    var messages: [Action] = []
    var answer: Action?
    /// Whether the call asked with `more` for its session as soon as it is decided (R11).
    var decisionFirst = false
    /// Handles of the apps marked ``AppRuntime/isDirty``, and a second buffer to swap with while flushing.
    var dirtyApps: [Int] = []
    var flushingApps: [Int] = []
    /// New sessions to evaluate alone, their app's layering having stayed put.
    var dirtySessions: [(slot: Int, id: SessionID)] = []
    var everythingDirty = false
    /// Apps that may have nothing left to keep once the event ends (F18).
    var idleApps: [Int] = []
    /// Whether the event is a fix, which location streams may be sent (U1).
    var fixArrived = false
    /// The number of the event being handled; a location stream remembers the last one that refreshed it.
    var eventNumber: UInt64 = 0

    /// A core with no history.
    /// - Parameters:
    ///   - configuration: the rule settings of §11.
    ///   - manifests: the loaded manifests (M1: the ones that failed are simply absent).
    ///   - epoch: a number that differs at every daemon start, so ids are never reused (S3).
    package init(configuration: CoreConfiguration, manifests: [Manifest], epoch: UInt32 = 0) {
        self.configuration = configuration
        self.locationServicesEnabled = true
        self.epoch = epoch
        self.sessions = SessionTable(epoch: epoch)
        for manifest in manifests {
            if let app = apps.handle(AppKey.noUser(manifest.appID)) {
                apps[app].manifest = manifest
            } else {
                addApp(AppKey.noUser(manifest.appID), manifest: manifest)
            }
        }
    }

    /// Adds an app the core has not seen, with the authorization it shows so far; returns its handle. A user's app
    /// starts with the administrator's setting for every user, if there is one (H5).
    @discardableResult
    mutating func addApp(_ key: AppKey, manifest: Manifest?) -> Int {
        let app = apps.add(AppRuntime(appID: key.appID, user: key.user, manifest: manifest))
        if key.user != nil, let policy = policies[key.appID] {
            apps[app].record = policy.applied(to: apps[app].record)
        }
        apps[app].lastAuthorization = authorizationView(app)
        return app
    }

    /// Handles one event at `now` and returns what the shell must do, persistence first.
    package mutating func handle(_ event: Event, at now: Instant) -> [Action] {
        begin(at: now)
        if restoredRecordsUnchecked {
            // L14: records a store kept are checked against the manifests at the first event after the restore.
            restoredRecordsUnchecked = false
            carryOverWindowless()
        }
        switch event {
        case .connected(let client, let pid, let uid, let administrator):
            clients[client] = ClientEntry(pid: pid, uid: uid, administrator: administrator)
        case .call(let call, let method):
            dispatch(call, method)
        case .disconnected(let client):
            disconnect(client)
        case .deadlineReached:
            break
        case .fix(let fix):
            receive(fix)
        case .fixLost:
            loseFix()
        case .storeHealth(let healthy):
            storeHealthChanged(healthy)
        case .reload(let manifests, let configuration):
            reload(manifests: manifests, configuration: configuration)
        }
        return finish()
    }

    private mutating func begin(at now: Instant) {
        let previous = self.now
        if now > self.now { self.now = now }
        // Empty already, unless a previous event stopped half-way.
        if !persisted.isEmpty { persisted.removeAll(keepingCapacity: true) }
        if !messages.isEmpty { messages.removeAll(keepingCapacity: true) }
        answer = nil
        decisionFirst = false
        fixArrived = false
        eventNumber &+= 1
        processDueDeadlines(since: previous)
        // Stored apps a restart found with nothing to keep go before the first event reads the tables (F18).
        if !idleApps.isEmpty { forgetIdleApps() }
    }

    /// Persistence, the answer, messages, then the timer. The messages' buffer becomes the result and the
    /// few actions before them are inserted at its front: moving a global switch's 100k messages in
    /// memory is cheaper than copying them one by one.
    private mutating func finish() -> [Action] {
        checkAlwaysUse()
        if !dirtyApps.isEmpty { noteIdleApps() }
        flushDiagnostics()
        if fixArrived { deliverFix() }
        if !idleApps.isEmpty { forgetIdleApps() }
        var actions: [Action] = []
        if let answer = answer.take() {
            if decisionFirst { sendDecisionFirst(answer) }
            persisted.append(answer)
        }
        if messages.isEmpty {
            swap(&actions, &persisted)
        } else {
            swap(&actions, &messages)
            if !persisted.isEmpty {
                actions.insert(contentsOf: persisted, at: 0)
                persisted.removeAll(keepingCapacity: true)
            }
        }
        let next = nextDeadline()
        if next != armedTimer || deadlinesLeftDue {
            armedTimer = next
            actions.append(.armTimer(next))
        }
        return actions
    }

    private mutating func dispatch(_ call: CallID, _ method: Call) {
        guard let index = clients.index(forKey: call.client) else {
            // A call on a connection the core never saw: treat it as a fresh one with unknown pid and user, which
            // administers nothing.
            clients[call.client] = ClientEntry(pid: 0, administrator: false)
            return dispatch(call, method)
        }
        caller = (call.client, clients.values[index].pid)
        if method.needsHello {
            guard let app = clients.values[index].app else { return fail(call, .helloRequired) }
            dispatchApp(call, method, app: app)
        } else {
            dispatchOther(call, method)
        }
    }

    private mutating func dispatchApp(_ call: CallID, _ method: Call, app: Int) {
        switch method {
        case .goodbye: goodbye(call)
        case .setAppState(let state):
            claim(app, state)
            reply(call, .empty)
        case .getAuthorization: reply(call, .authorization(authorizationView(app)))
        case .watchAuthorization: watchAuthorization(call, app: app)
        case .requestAuthorization(let level): requestAuthorization(call, app: app, level: level)
        case .requestTemporaryFullAccuracy(let key): requestTemporaryFullAccuracy(call, app: app, purposeKey: key)
        case .createSession(let requirement, let key, let more):
            decisionFirst = more
            createSession(call, app: app, kind: .explicit, requirement: requirement, purposeKey: key)
        case .resumeSession(let id, let more):
            decisionFirst = more
            resumeSession(call, app: app, id: id)
        case .invalidateSession(let id): invalidateSession(call, app: app, id: id)
        case .listSessions: reply(call, .sessions(sessionViews(of: app)))
        case .sessionDiagnostics(let id): sessionDiagnostics(call, app: app, id: id)
        case .beginBackgroundActivity: beginBackgroundActivity(call, app: app)
        case .liveUpdates(let configuration, let accuracy, let session):
            startLiveUpdates(call, app: app, configuration, reducedByChoice: accuracy == .reduced, session: session)
        case .monitorEvents(let monitor):
            startLocationStream(call, app: app, monitor: monitor)
            startMonitor(call, app: app, monitor: monitor)
        case .addCondition(let monitor, let identifier, let condition):
            addCondition(call, app: app, monitor: monitor, identifier: identifier, condition: condition)
        case .removeCondition(let monitor, let identifier):
            removeCondition(call, app: app, monitor: monitor, identifier: identifier)
        default: dispatchOther(call, method)
        }
    }

    private mutating func dispatchOther(_ call: CallID, _ method: Call) {
        switch method {
        case .hello(let appID, let state): hello(call, appID: appID, state: state)
        case .brokeredHello(let appID, let state, let process, let description, let uid):
            let broker = BrokeredHello(process: process, description: description, uid: uid)
            hello(call, appID: appID, state: state, broker: broker)
        case .status: reply(call, .status(status(scope: scope(of: call))))
        case .listApps(let user): listApps(call, user: user)
        case .adminListSessions(let appID, let user): adminListSessions(call, appID: appID, user: user)
        case .setAuthorization(let appID, let setting, let precise, let user):
            setAuthorization(call, appID: appID, setting: setting, precise: precise, user: user)
        case .setLocationServices(let enabled): setLocationServices(call, enabled: enabled)
        case .adminSetAppState(let appID, let state, let user):
            adminSetAppState(call, appID: appID, state: state, user: user)
        case .locationButton(let appID, let user): locationButton(call, appID: appID, user: user)
        case .setDesktop(let name, let front, let locked, let failure, let user):
            setDesktop(call, name: name, front: front, locked: locked, failure: failure, user: user)
        case .prompts: startAgent(call, everyone: false)
        case .promptsOfEveryone: startAgent(call, everyone: true)
        case .promptsOfUsers(let users): startAgent(call, everyone: true, users: users)
        case .answerPrompt(let id, let answer, let accuracy):
            answerPrompt(call, id: id, answer: answer, accuracy: accuracy)
        case .watch: startWatch(call)
        case .forgetApps(let owner): forgetApps(call, owner: owner)
        default: fail(call, .methodNotFound(method: "\(method)"))
        }
    }

    /// P12: starts or stops the count of background use under Always for the apps this event touched.
    private mutating func checkAlwaysUse() {
        if everythingDirty {
            for app in apps.ordered { updateAlwaysUse(app) }
            return
        }
        // Raising a prompt marks its app dirty; that app is one of these, so the list does not grow under us.
        for index in dirtyApps.indices { updateAlwaysUse(dirtyApps[index]) }
        for (slot, id) in dirtySessions where sessions.holds(id, at: slot) && !apps[sessions[slot].app].isDirty {
            updateAlwaysUse(sessions[slot].app)
        }
    }

    // MARK: Output

    mutating func reply(_ call: CallID, _ reply: Reply) {
        answer = .reply(call, reply)
    }

    mutating func fail(_ call: CallID, _ error: LocationError) {
        answer = .fail(call, error)
        // H4, I6: every call refused for its caller's reach is told in the log.
        if case .permissionDenied(let reason) = error {
            tell(.refused(call, .denied(reason: reason, uid: clients[call.client]?.uid)))
        }
    }

    /// R11: a session call asked with `more` hears its session at once, ahead of the reply that acknowledges it
    /// once stored, when the session is the only thing its reply waits for. Not when the event writes a decision
    /// too: then nothing goes out before that is stored (R1), and the final reply alone tells it.
    private mutating func sendDecisionFirst(_ answer: Action) {
        guard case .reply(let call, .session(let session)) = answer else { return }
        var storesSession = false
        for case .persist(let write) in persisted {
            if write.isDecision { return }
            if case .session = write { storesSession = true }
        }
        if storesSession { persisted.append(.emit(call, .decided(session))) }
    }

    /// Binds a connection to an app, or to none, and tells the shell, which holds what goes to it while a decision of
    /// that app is not stored (R12).
    mutating func bind(_ client: ClientID, to app: Int?) {
        clients[client]?.app = app
        tell(.speaksFor(client, app.map { apps[$0].key }))
    }

    mutating func persist(_ write: Persist) {
        tell(.persist(write))
    }

    /// Adds an action for the shell itself (a write, the app of a connection, a refusal to log) to the few that go
    /// ahead of the answer and the messages; where it stands among them does not matter to the shell.
    mutating func tell(_ action: Action) {
        // The buffer leaves with each event's actions: room for the answer and the timer avoids regrowing it.
        if persisted.capacity == 0 { persisted.reserveCapacity(4) }
        persisted.append(action)
    }

    mutating func emit(_ stream: CallID, _ message: StreamMessage) {
        messages.append(.emit(stream, message))
    }

    /// Reports a state change to every `Admin.Watch` stream; the detail is built only when someone watches.
    mutating func announce(
        _ kind: AdminEventKind,
        app: Int?,
        session: SessionID? = nil,
        _ detail: @autoclosure () -> String
    ) {
        guard !watchers.isEmpty else { return }
        let key = app.map { apps[$0].key }
        let event = AdminEvent(
            kind: kind,
            appID: key?.appID,
            sessionID: session,
            detail: detail(),
            at: now,
            user: key?.user
        )
        // H4: a user's watcher sees their own apps' events, and the events of no app (the switch, the provider).
        for watcher in watchers where key.map({ scope(of: watcher).covers($0) }) ?? true {
            emit(watcher, .event(event))
        }
    }

    /// Marks an app for re-evaluation when the event ends (``flushDiagnostics()``).
    mutating func markDirty(_ app: Int) {
        guard !apps[app].isDirty else { return }
        apps[app].isDirty = true
        dirtyApps.append(app)
    }

    // MARK: Queries

    /// The record as the rules read it, with the restricted overlay (A1) and the administrator's grant (G32).
    func effectiveRecord(_ app: AppRuntime) -> AuthorizationRecord {
        administered(
            app.record.overlaid(restricted: isRestricted(app.appID)),
            app.appID,
            user: app.user,
            windowless: app.declares.backgroundOnly
        ) {
            AdministeredApp.verifies(app.manifest)
        }
    }

    func effectiveRecord(_ app: Int) -> AuthorizationRecord {
        let record =
            configuration.restrictedApps.isEmpty
            ? apps[app].record
            : apps[app].record.overlaid(restricted: configuration.restrictedApps.contains(apps[app].appID))
        return administered(
            record,
            apps[app].appID,
            user: apps[app].user,
            windowless: apps[app].declares.backgroundOnly
        ) {
            AdministeredApp.verifies(apps[app].manifest)
        }
    }

    /// G32: `record` under the app's `[[administered-app]]`, if it has one; a restricted record stays restricted.
    /// Its grant applies only to an app whose identity locd verifies.
    private func administered(
        _ record: AuthorizationRecord,
        _ appID: String,
        user: UInt32?,
        windowless: Bool,
        verified: () -> Bool
    ) -> AuthorizationRecord {
        guard !configuration.administeredApps.isEmpty, record.status != .restricted,
            let administered = configuration.administeredApps[appID]
        else { return record }
        return administered.overlaid(record, user: user, verified: verified(), windowless: windowless)
    }

    func isRestricted(_ appID: String) -> Bool {
        !configuration.restrictedApps.isEmpty && configuration.restrictedApps.contains(appID)
    }

    package func authorizationView(_ key: AppKey) -> AuthorizationView {
        guard let app = apps.handle(key) else { return AuthorizationView(AuthorizationRecord()) }
        return authorizationView(app)
    }

    func authorizationView(_ app: Int) -> AuthorizationView { AuthorizationView(effectiveRecord(app)) }

    /// The stored (not overlaid) record of an app, as the store holds it.
    /// (These views read a field of the app in place: `apps[handle]` would copy the whole runtime first.)
    package func storedRecord(_ key: AppKey) -> AuthorizationRecord? {
        apps.handle(key).map { apps.runtimes[$0].record }
    }

    /// The app's lifecycle state and whether it is in use (L2).
    package func appState(_ key: AppKey) -> (state: AppState, inUse: Bool)? {
        apps.handle(key).map { (apps.runtimes[$0].state, apps.runtimes[$0].inUse) }
    }

    /// Every app the core holds, in key order, with what ``appState(_:)``, ``storedRecord(_:)`` and
    /// ``queuedPrompts(of:)`` show of it: one pass over the table instead of a lookup by key for each, for a checker
    /// that reads every app after every event.
    package var appViews:
        [(key: AppKey, state: AppState, inUse: Bool, record: AuthorizationRecord, queue: [PromptView])]
    {
        var views: [(key: AppKey, state: AppState, inUse: Bool, record: AuthorizationRecord, queue: [PromptView])] = []
        views.reserveCapacity(apps.count)
        for handle in apps.ordered {
            var queue: [PromptView] = []
            for id in apps.runtimes[handle].queue {
                if let prompt = promptView(id) { queue.append(prompt) }
            }
            let key = AppKey(apps.runtimes[handle].appID, user: apps.runtimes[handle].user)
            views.append(
                (key, apps.runtimes[handle].state, apps.runtimes[handle].inUse, apps.runtimes[handle].record, queue)
            )
        }
        return views
    }

    /// The view of every live session, in id order: ``sessionIDs`` and ``sessionView(_:)`` without a lookup each.
    /// (Loops, not closures: a closure here captured a copy of the whole core.)
    package var sessionViews: [SessionView] {
        var live: [(id: SessionID, slot: Int)] = []
        for slot in sessions.slots.indices where sessions.slots[slot].isLive {
            live.append((sessions.slots[slot].id, slot))
        }
        live.sort { $0.id < $1.id }
        var views: [SessionView] = []
        views.reserveCapacity(live.count)
        for session in live { views.append(view(ofSlot: session.slot)) }
        return views
    }

    /// Ids of every live session, in order.
    package var sessionIDs: [SessionID] { sessions.keys.sorted() }

    /// The current view of a session, if it is live.
    package func sessionView(_ id: SessionID) -> SessionView? {
        sessions.slot(of: id).map { view(ofSlot: $0) }
    }

    /// The shown heads of every app's prompt queue, oldest first.
    package var pendingPromptViews: [PromptView] {
        let heads = apps.values.compactMap { app in
            app.queue.first.flatMap { prompts[$0]?.raisedAt == nil ? nil : promptView($0) }
        }
        return heads.sorted { ($0.raisedAt, $0.id) < ($1.raisedAt, $1.id) }
    }

    /// Every pending prompt of an app, head first.
    package func queuedPrompts(of key: AppKey) -> [PromptView] {
        guard let app = apps.handle(key) else { return [] }
        return apps.runtimes[app].queue.compactMap { promptView($0) }
    }

    package var isProviderRunning: Bool { providerRunning }

    /// Whether the provider last reported a fix (D9).
    package var providerReportsFix: Bool { providerHasFix }

    /// The provider's newest fix, if it ever had one.
    package var newestFix: Fix? { lastFix }
}
