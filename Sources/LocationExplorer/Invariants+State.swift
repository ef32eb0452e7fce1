import LocationCore

extension Invariant {
    /// R1, R2, R3: the store holds every decision, session and prompt the core holds; a restart restores them all.
    package static let nothingLost = Invariant(
        "nothing persisted is lost by a restart",
        rules: ["R1", "R2", "R3"]
    ) { transition in
        let reading = transition.readingAfter
        let servicesOn = transition.after.core.locationServicesEnabled
        if transition.after.store.locationServicesEnabled != servicesOn {
            return "the store's switch is \(!servicesOn), the core's \(servicesOn)"
        }
        for (key, stored) in transition.after.store.records {
            let held = reading.app(key).map(\.record) ?? transition.after.core.storedRecord(key)
            if held != stored { return "\(key): the store holds \(stored), the core \(String(describing: held))" }
        }
        if let problem = sessionsAndPromptsKept(transition) { return problem }
        guard case .restart = transition.event else { return nil }
        let core = transition.after.core
        let live = reading.sessions.filter { $0.kind != .implicit }.map(\.id)
        let restored = Set(live)
        let before = transition.before.store
        for (key, record) in before.records where core.storedRecord(key) != record {
            return "\(key) had \(record) before the restart, \(String(describing: core.storedRecord(key))) after"
        }
        if Set(before.sessions.map(\.id)) != restored { return "sessions \(live) restored, not all stored" }
        for id in live where core.sessionView(id)?.state != .lingering { return "restored \(id) does not linger" }
        return nil
    }

    /// R1: the store holds exactly the core's explicit sessions and queued prompts. Ids are unique on both sides,
    /// so equal counts and every stored id held mean the same sets; counted in place, as this runs after every
    /// event.
    static func sessionsAndPromptsKept(_ transition: Transition) -> String? {
        let (reading, store) = (transition.readingAfter, transition.after.store)
        let live = reading.sessions.lazy.filter { $0.kind != .implicit }
        if live.count != store.sessions.count
            || !store.sessions.allSatisfy({ stored in live.contains { $0.id == stored.id } })
        {
            return "sessions \(live.map(\.id)) live, \(store.sessions.map(\.id).sorted()) stored"
        }
        let queued = reading.apps.reduce(0) { $0 + $1.queue.count }
        func isQueued(_ id: PromptID) -> Bool { reading.apps.contains { $0.queue.contains { $0.id == id } } }
        if queued != store.prompts.count || !store.prompts.allSatisfy({ isQueued($0.id) }) {
            let ids = reading.apps.flatMap { $0.queue.map(\.id) }.sorted()
            return "prompts \(ids) queued, \(store.prompts.map(\.id).sorted()) stored"
        }
        return nil
    }

    /// D1, D12: the mask says what the state is: services off is flagged, and an active session has no limit.
    package static let diagnosticsMatchState = Invariant(
        "diagnostics flags consistent with state",
        rules: ["D1", "D12"]
    ) { transition in
        let servicesOn = transition.after.core.locationServicesEnabled
        for view in transition.readingAfter.sessions {
            let status = transition.after.core.authorizationView(AppKey(view.appID, user: view.user)).status
            if let problem = diagnosticsProblem(view, servicesOn: servicesOn, status: status) {
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
        let size = transition.after.size
        for user in 0..<size.users where user != actor {
            for app in 0..<size.apps {
                let before = transition.readingBefore.app(app, user: user, of: size)
                let after = transition.readingAfter.app(app, user: user, of: size)
                let key = after.key
                if before.record != after.record {
                    return "user \(actor)'s event changed \(key)'s record to \(String(describing: after.record))"
                }
                if before.state != after.state { return "user \(actor)'s event moved \(key)" }
                if before.queue.map(\.id) != after.queue.map(\.id) {
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
        guard let earliest = transition.after.earliestDeadline(transition.readingAfter) else { return nil }
        let (armed, now) = (transition.after.armed, transition.after.now)
        guard let armed else { return "a deadline stands at \(earliest) and no timer is armed" }
        if armed > earliest { return "the timer is armed at \(armed), after the deadline at \(earliest)" }
        if armed <= now { return "the timer is armed at \(armed), not after now (\(now))" }
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
    package var standingDeadlines: [Instant] { standingDeadlines(CoreReading(self)) }

    /// The earliest of ``standingDeadlines``, found without collecting them.
    func earliestDeadline(_ reading: CoreReading) -> Instant? {
        var earliest: Instant?
        forEachStandingDeadline(reading) { deadline in earliest = min(earliest ?? deadline, deadline) }
        return earliest
    }

    /// The deadlines, from a reading of this state's core.
    package func standingDeadlines(_ reading: CoreReading) -> [Instant] {
        var deadlines: [Instant] = []
        forEachStandingDeadline(reading) { deadlines.append($0) }
        return deadlines
    }

    private func forEachStandingDeadline(_ reading: CoreReading, _ body: (Instant) -> Void) {
        for view in reading.sessions where view.state == .lingering {
            if let deadline = view.deadline { body(deadline) }
        }
        for app in store.apps {
            if let graceEnds = app.graceEnds { body(graceEnds) }
            if let relaunchEnds = app.relaunchEnds { body(relaunchEnds) }
        }
        for app in reading.apps {
            guard let head = app.queue.first,
                let raised = store.prompts.first(where: { $0.id == head.id })?.raisedAt
            else { continue }
            body(raised.adding(Self.configuration.promptTimeout))
        }
    }
}
