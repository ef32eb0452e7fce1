import LocationCore

extension Invariant {
    /// R1, R2, R3: the store holds every decision, session and prompt the core holds; a restart restores them all.
    package static let nothingLost = Invariant(
        "nothing persisted is lost by a restart",
        rules: ["R1", "R2", "R3"]
    ) { transition in
        let (core, store) = (transition.after.core, transition.after.store)
        if store.locationServicesEnabled != core.locationServicesEnabled {
            return "the store's switch is \(store.locationServicesEnabled), the core's \(core.locationServicesEnabled)"
        }
        for (key, stored) in store.records where core.storedRecord(key) != stored {
            return "\(key): the store holds \(stored), the core \(String(describing: core.storedRecord(key)))"
        }
        let live = Set(core.sessionIDs.filter { core.sessionView($0)?.kind != .implicit })
        let kept = Set(store.sessions.map(\.id))
        if live != kept { return "sessions \(live.sorted()) live, \(kept.sorted()) stored" }
        let queued = Set(transition.after.appKeys.flatMap { core.queuedPrompts(of: $0).map(\.id) })
        let stored = Set(store.prompts.map(\.id))
        if queued != stored { return "prompts \(queued.sorted()) queued, \(stored.sorted()) stored" }
        guard case .restart = transition.event else { return nil }
        let before = transition.before.store
        for (key, record) in before.records where core.storedRecord(key) != record {
            return "\(key) had \(record) before the restart, \(String(describing: core.storedRecord(key))) after"
        }
        if Set(before.sessions.map(\.id)) != live { return "sessions \(live.sorted()) restored, not all stored" }
        for id in live where core.sessionView(id)?.state != .lingering { return "restored \(id) does not linger" }
        return nil
    }

    /// D1, D12: the mask says what the state is: services off is flagged, and an active session has no limit.
    package static let diagnosticsMatchState = Invariant(
        "diagnostics flags consistent with state",
        rules: ["D1", "D12"]
    ) { transition in
        let core = transition.after.core
        for id in core.sessionIDs {
            guard let view = core.sessionView(id) else { continue }
            let status = core.authorizationView(AppKey(view.appID, user: view.user)).status
            if let problem = diagnosticsProblem(view, servicesOn: core.locationServicesEnabled, status: status) {
                return problem
            }
        }
        return nil
    }

    /// What is wrong with one session's mask and state, given the switch and its app's status.
    package static func diagnosticsProblem(
        _ view: SessionView,
        servicesOn: Bool,
        status: AuthorizationStatus
    ) -> String? {
        if servicesOn == view.diagnostic.contains(.authorizationDeniedGlobally) {
            return "\(view.id)'s mask \(view.diagnostic) with services \(servicesOn ? "on" : "off")"
        }
        guard view.state == .active else { return nil }
        if !view.diagnostic.isDisjoint(with: .limitingSession) { return "\(view.id) is active with \(view.diagnostic)" }
        if view.requirement != .noAuthorization && !status.isAuthorized {
            return "\(view.id) is active, requirement \(view.requirement.rawValue), \(status.rawValue)"
        }
        return nil
    }

    /// H1: what one user's process or answer does changes no other user's record, app state or prompts.
    package static let usersApart = Invariant(
        "one user's decision never reaches another",
        rules: ["H1"]
    ) { transition in
        guard let actor = transition.actingUser else { return nil }
        let (before, after) = (transition.before.core, transition.after.core)
        for user in 0..<transition.after.size.users where user != actor {
            for app in 0..<transition.after.size.apps {
                let key = transition.after.appKey(app: app, user: user)
                if before.storedRecord(key) != after.storedRecord(key) {
                    return
                        "user \(actor)'s event changed \(key)'s record to \(String(describing: after.storedRecord(key)))"
                }
                if before.appState(key)?.state != after.appState(key)?.state {
                    return "user \(actor)'s event moved \(key)"
                }
                if before.queuedPrompts(of: key).map(\.id) != after.queuedPrompts(of: key).map(\.id) {
                    return "user \(actor)'s event changed \(key)'s prompts"
                }
            }
        }
        return nil
    }

    /// L1: the desktop's report of what is in front, like the app's own, moves a running app at once.
    package static let desktopReportHolds = Invariant(
        "the desktop's report of what is in front takes effect",
        rules: ["L1"]
    ) { transition in
        let key: AppKey
        let reported: RunningState
        switch transition.event {
        case .desktop(let app, let user, let state):
            (key, reported) = (transition.after.appKey(app: app, user: user), state)
        case .claim(let client, let state): (key, reported) = (transition.before.appKey(of: client), state)
        default: return nil
        }
        let now = transition.after.running(key)
        return now == reported ? nil : "\(key) reported \(reported.rawValue), is \(String(describing: now))"
    }

    /// L6, R2: a timer is armed no later than every deadline that stands, and never for an instant passed.
    package static let deadlinesRechecked = Invariant(
        "every armed deadline is eventually re-checked",
        rules: ["L6", "R2"]
    ) { transition in
        let state = transition.after
        guard let earliest = state.standingDeadlines.min() else { return nil }
        guard let armed = state.armed else { return "a deadline stands at \(earliest) and no timer is armed" }
        if armed > earliest { return "the timer is armed at \(armed), after the deadline at \(earliest)" }
        if armed <= state.now { return "the timer is armed at \(armed), not after now (\(state.now))" }
        return nil
    }
}

extension Transition {
    /// The locations the event's updates carried, with the user's app of their stream.
    var locations: [(AppKey, Fix)] {
        var found: [(AppKey, Fix)] = []
        for case .emit(let stream, .update(_, let location?)) in actions {
            let slots = after.clients + before.clients
            guard let client = slots.firstIndex(where: { $0.stream == stream }) else { continue }
            let state = client < after.clients.count ? after : before
            let index = client < after.clients.count ? client : client - after.clients.count
            found.append((state.appKey(of: index), location))
        }
        return found
    }

    /// The user whose process, desktop or answer the event is, if it is one user's.
    var actingUser: Int? {
        switch event {
        case .launch(_, _, let user, _), .desktop(_, let user, _), .answer(_, let user, _): user
        case .create(let client, _, _), .invalidate(let client), .resume(let client), .claim(let client, _),
            .liveUpdates(let client), .disconnect(let client), .goodbye(let client):
            before.clients[client].user
        case .services, .fix, .fixLost, .time, .restart: nil
        }
    }
}

extension ModelState {
    /// The deadlines the core shows: lingering sessions, stored grace and relaunch windows, and the timeout of
    /// each queue's raised head prompt.
    package var standingDeadlines: [Instant] {
        let core = self.core
        var deadlines: [Instant] = []
        for id in core.sessionIDs {
            if let view = core.sessionView(id), view.state == .lingering, let deadline = view.deadline {
                deadlines.append(deadline)
            }
        }
        for app in store.apps { deadlines += [app.graceEnds, app.relaunchEnds].compactMap { $0 } }
        for key in appKeys {
            guard let head = core.queuedPrompts(of: key).first,
                let raised = store.prompts.first(where: { $0.id == head.id })?.raisedAt
            else { continue }
            deadlines.append(raised.adding(Self.configuration.promptTimeout))
        }
        return deadlines
    }
}
