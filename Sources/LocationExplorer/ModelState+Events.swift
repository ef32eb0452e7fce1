import LocationCore

extension ModelState {
    /// The events that can happen next. A launch takes the lowest-numbered free client: free clients are alike, so
    /// the others would only rename it (symmetry by construction).
    package var enabledEvents: [ModelEvent] {
        let core = self.core
        var events: [ModelEvent] = []
        if let free = clients.firstIndex(where: { !$0.isConnected }) {
            for app in 0..<size.apps {
                for user in 0..<size.users {
                    events.append(.launch(client: free, app: app, user: user, background: false))
                    events.append(.launch(client: free, app: app, user: user, background: true))
                }
            }
        }
        for client in clients.indices where clients[client].isConnected {
            events += clientEvents(client, core)
        }
        for app in 0..<size.apps {
            for user in 0..<size.users {
                let key = appKey(app: app, user: user)
                if let state = running(key, core) { events.append(.desktop(app: app, user: user, state.other)) }
                if let head = core.queuedPrompts(of: key).first {
                    events += head.options.map { .answer(app: app, user: user, $0) }
                }
            }
        }
        events.append(.services(!core.locationServicesEnabled))
        // A fix again changes nothing but for a stream to send it to.
        if !core.providerReportsFix || clients.contains(where: { $0.stream != nil }) { events.append(.fix) }
        if core.providerReportsFix { events.append(.fixLost) }
        events += TimePoint.allCases.filter { instant(at: $0) != nil }.map { .time($0) }
        events.append(.restart)
        return events
    }

    private func clientEvents(_ client: Int, _ core: LocationCore) -> [ModelEvent] {
        let slot = clients[client]
        let key = appKey(of: client)
        var events: [ModelEvent] = [.create(client: client, .whenInUse, purpose: false)]
        switch size.kind(ofApp: slot.app) {
        case .precise: events.append(.create(client: client, .always, purpose: false))
        case .approximate: events.append(.create(client: client, .whenInUse, purpose: true))
        }
        if slot.sessions.contains(where: { core.sessionView($0) != nil }) {
            events.append(.invalidate(client: client))
        }
        if Self.oldestLingering(key, core) != nil { events.append(.resume(client: client)) }
        if let state = running(key, core) { events.append(.claim(client: client, state.other)) }
        if slot.stream == nil { events.append(.liveUpdates(client: client)) }
        events.append(.disconnect(client: client))
        events.append(.goodbye(client: client))
        return events
    }

    /// The app's state while it runs in the foreground or background.
    func running(_ key: AppKey) -> RunningState? { running(key, core) }

    func running(_ key: AppKey, _ core: LocationCore) -> RunningState? {
        switch core.appState(key)?.state {
        case .foreground: .foreground
        case .background: .background
        default: nil
        }
    }

    func newestSession(of client: Int) -> SessionID? {
        clients[client].sessions.last { core.sessionView($0) != nil }
    }

    static func oldestLingering(_ key: AppKey, _ core: LocationCore) -> SessionID? {
        core.sessionIDs.first { id in
            guard let view = core.sessionView(id) else { return false }
            return view.state == .lingering && view.appID == key.appID && view.user == key.user
        }
    }

    /// The instant a time event moves the clock to, if it lies ahead.
    func instant(at point: TimePoint) -> Instant? {
        guard let armed else { return nil }
        let target: Instant
        switch point {
        case .before: target = Instant(nanoseconds: armed.nanoseconds - Self.nudge.nanoseconds)
        case .at: target = armed
        case .after: target = armed.adding(Self.nudge)
        }
        return target > now ? target : nil
    }

    // MARK: Applying

    /// Applies an event and returns what the core did; the caller checks that the event is enabled.
    package mutating func apply(_ event: ModelEvent) -> [Action] {
        switch event {
        case .launch(let client, let app, let user, let background):
            return launch(client, app: app, user: user, background: background)
        case .create(let client, let requirement, let purpose):
            let key = purpose ? size.kind(ofApp: clients[client].app).purposeKey : nil
            let (_, actions) = call(on: client, .createSession(requirement, purposeKey: key))
            adopt(actions, by: client)
            return actions
        case .invalidate(let client):
            guard let id = newestSession(of: client) else { return [] }
            return call(on: client, .invalidateSession(id.description)).1
        case .resume(let client):
            guard let id = Self.oldestLingering(appKey(of: client), core) else { return [] }
            let (_, actions) = call(on: client, .resumeSession(id.description))
            adopt(actions, by: client)
            return actions
        case .claim(let client, let state):
            return call(on: client, .setAppState(state)).1
        case .desktop(let app, let user, let state):
            let key = appKey(app: app, user: user)
            return call(admin, .adminSetAppState(appID: key.appID, state: state, user: key.user)).1
        case .liveUpdates(let client):
            let (stream, actions) = call(on: client, .liveUpdates(.standard))
            clients[client].stream = stream
            return actions
        case .disconnect(let client):
            guard let connection = clients[client].connection else { return [] }
            clients[client] = ClientSlot()
            return send(.disconnected(connection))
        case .goodbye(let client):
            guard let connection = clients[client].connection else { return [] }
            var actions = call(connection, .goodbye).1
            clients[client] = ClientSlot()
            actions += send(.disconnected(connection))
            return actions
        case .answer(let app, let user, let answer):
            guard let head = core.queuedPrompts(of: appKey(app: app, user: user)).first else { return [] }
            return call(admin, .answerPrompt(id: head.id.description, answer: answer, accuracy: nil)).1
        case .services(let enabled):
            return call(admin, .setLocationServices(enabled)).1
        case .fix:
            return send(.fix(Self.fix(at: now)))
        case .fixLost:
            return send(.fixLost)
        case .time(let point):
            guard let target = instant(at: point) else { return [] }
            now = target
            return send(.deadlineReached)
        case .restart:
            return restart()
        }
    }

    private mutating func launch(_ client: Int, app: Int, user: Int, background: Bool) -> [Action] {
        let connection = newClient()
        clients[client] = ClientSlot(connection: connection, app: app, user: user)
        let key = appKey(app: app, user: user)
        var actions = send(.connected(connection, pid: pid(of: client), uid: key.user, administrator: false))
        let state: RunningState? = background ? .background : nil
        actions += call(connection, .hello(appID: key.appID, state: state)).1
        return actions
    }

    private mutating func call(on client: Int, _ method: Call) -> (CallID, [Action]) {
        guard let connection = clients[client].connection else { return (CallID(client: ClientID(0), serial: 0), []) }
        return call(connection, method)
    }

    /// Keeps the session a `CreateSession` or `ResumeSession` replied with as the client's.
    private mutating func adopt(_ actions: [Action], by client: Int) {
        for case .reply(_, .session(let view)) in actions { clients[client].sessions.append(view.id) }
    }

    /// R2, R3: every connection closes; a fresh core restores what the store holds, with a new epoch, and the
    /// agent connects again.
    private mutating func restart() -> [Action] {
        epoch += 1
        core = LocationCore(
            configuration: Self.configuration,
            manifests: size.manifests,
            restoring: store,
            epoch: epoch,
            at: now
        )
        armed = nil
        clients = Array(repeating: ClientSlot(), count: size.clients)
        return connectAgent()
    }

    /// A precise fix at Tokyo Station, stamped with the model's clock.
    static func fix(at now: Instant) -> Fix {
        Fix(latitude: 35.681236, longitude: 139.767125, horizontalAccuracy: 5, timestamp: 1_700_000_000 + now.seconds)
    }
}

extension RunningState {
    var other: RunningState { self == .foreground ? .background : .foreground }
}
