// App lifecycle and "in use" (SEMANTICS §4).
extension LocationCore {
    /// `Hello`, from the app's own process or from a broker for it (I8, I11).
    mutating func hello(_ call: CallID, appID: String, state claimed: RunningState?, broker: BrokeredHello? = nil) {
        let client = call.client
        if let bound = clients[client]?.app {
            let boundID = apps[bound].appID
            guard boundID == appID else {
                return fail(
                    call,
                    .invalidParameter(
                        parameter: "appId",
                        reason: "this connection already speaks for \(boundID): open a new connection for \(appID)"
                    )
                )
            }
            return reply(call, helloReply(bound))
        }
        guard let app = appForHello(call, appID: appID, broker: broker) else { return }
        guard apps[app].clients.count < configuration.maxClientsPerApp else {
            return fail(call, .limitExceeded(limit: "max-clients-per-app", maximum: configuration.maxClientsPerApp))
        }
        guard clients[client] != nil else {
            preconditionFailure(
                "a call is dispatched only for a client the core holds (dispatch adds one it never saw)"
            )
        }
        bind(client, to: app)
        // I8: a broker's connection speaks for the process it named; Goodbye ends that process's clients only.
        if let broker {
            clients[client]?.pid = broker.process
            clients[client]?.brokered = true
        }
        let old = apps[app].state
        apps[app].clients.append(client)
        if !apps[app].isRunning { apps[app].claim = claimed ?? .foreground }
        // L11: where the user's desktop decides, it says whether the app starts in the foreground.
        let requested = desktopState(app) ?? claimed

        if apps[app].restartEnds != nil {
            // L7: after a daemon restart the app keeps its state; the client is just coming back.
            apps[app].restartEnds = nil
        } else {
            switch old {
            case .notRunning:
                apps[app].state = requested == .background ? .background : .foreground
                apps[app].graceEnds = nil
            case .terminated:
                let windowOpen = apps[app].relaunchEnds.map { now < $0 } ?? false
                if requested == .background {
                    apps[app].state = .background
                    // L1: a background relaunch of an app that was in use starts its grace now.
                    if apps[app].inUseAtTermination && windowOpen {
                        setGrace(app, ends: now.adding(configuration.backgroundGrace))
                    }
                } else {
                    apps[app].state = .foreground
                }
                apps[app].relaunchEnds = nil
                apps[app].inUseAtTermination = false
            case .foreground, .background:
                break
            }
        }
        // L4: lingering sessions wait at least relaunch-adopt for the new process to take them.
        let adopt = now.adding(configuration.relaunchAdopt)
        for slot in apps[app].sessionSlots {
            guard let ends = sessions[slot].lingerEnds, ends < adopt else { continue }
            setLinger(slot, ends: adopt)
        }
        lifecycleChanged(app, from: old)
        // L12: the new process may be a window's in front, or its descendant.
        followDesktop(app)
        reply(call, helloReply(app))
    }

    /// The app `Hello` binds to: the app of the process's user (H1), with the manifest installed for the app id,
    /// or one M3, or I11 for a brokered app, stands in; `nil` when the call has failed.
    private mutating func appForHello(_ call: CallID, appID: String, broker: BrokeredHello?) -> Int? {
        let user: UInt32? = if let broker { broker.uid } else { clients[call.client]?.uid }
        let key = AppKey(appID, user: user)
        let known = apps.handle(key)
        if let known, let manifest = apps[known].manifest, !manifest.isStandIn { return known }
        let standIn: Manifest
        if user != nil, let installed = apps.handle(AppKey.noUser(appID)), let manifest = apps[installed].manifest,
            !manifest.isStandIn
        {
            // H2: the app's entry of no user holds the manifest the administrator installed for every user.
            standIn = manifest
        } else if let broker {
            guard configuration.unknownBrokeredApps == .ask else {
                fail(call, .appUnknown(appID: appID, brokered: true))
                return nil
            }
            standIn = .unknownBrokeredApp(appID, description: broker.description)
        } else {
            // M3: a manifest a broker's Hello stood in (I11) is no ground for a process that connects itself.
            guard configuration.allowUnknownApps else {
                fail(call, .appUnknown(appID: appID))
                return nil
            }
            standIn = .unknownApp(appID)
        }
        if let known {
            apps[known].manifest = standIn
            return known
        }
        // F20, H8: the app this Hello makes is its user's, who may have max-apps-per-uid of them.
        if let user, ownedApps[account(user), default: 0] >= configuration.maxAppsPerUID {
            fail(call, .limitExceeded(limit: "max-apps-per-uid", maximum: configuration.maxAppsPerUID))
            // I6: a flood of invented app ids is told in the log, two lines per window.
            let refusal = Refusal.appLimit(
                appID: appID,
                uid: user,
                process: broker?.process,
                maximum: configuration.maxAppsPerUID
            )
            tell(.refused(call, refusal))
            return nil
        }
        let app = addApp(key, manifest: standIn)
        if let user { ownedApps[account(user), default: 0] += 1 }
        return app
    }

    private func helloReply(_ app: Int) -> Reply {
        let lingering = sessionViews(of: app).filter { $0.state == .lingering }
        return .hello(authorization: authorizationView(app), lingeringSessions: lingering)
    }

    /// `Goodbye` speaks for the calling process: its sessions end now, its connections are unbound (L3).
    mutating func goodbye(_ call: CallID) {
        guard let caller = clients[call.client], let app = caller.app else { return }
        let old = apps[app].state
        let processClients = apps[app].clients.filter { clients[$0]?.pid == caller.pid }
        // The app's last process: its prompts go first, so ending its sessions shows no next head (S6).
        if processClients.count == apps[app].clients.count { cancelPrompts(of: app) }
        for client in processClients {
            for slot in apps[app].sessionSlots where sessions.isLive(slot) && sessions[slot].owner == client {
                endSession(slot, final: true)
            }
            guard let open = clients[client]?.streams else {
                preconditionFailure("an app's clients are clients the core holds: a disconnect unbinds its client")
            }
            clients[client]?.streams = []
            for stream in open { closeStream(stream, final: true) }
            bind(client, to: nil)
            apps[app].clients.removeAll { $0 == client }
            apps[app].requests.removeAll { $0.client == client }
        }
        if apps[app].clients.isEmpty {
            apps[app].state = .notRunning
            apps[app].graceEnds = nil
            apps[app].relaunchEnds = nil
            apps[app].restartEnds = nil
            apps[app].inUseAtTermination = false
            for slot in apps[app].sessionSlots { endSession(slot, final: true) }
            cancelPrompts(of: app)
        }
        lifecycleChanged(app, from: old)
        followDesktop(app)
        pruneprompts(app)
        reply(call, .empty)
    }

    /// A connection closed without `Goodbye`: its sessions linger, and a last client terminates the app (L3).
    mutating func disconnect(_ client: ClientID) {
        guard let entry = clients.removeValue(forKey: client) else { return }
        closeStreams(entry.streams)
        if let user = entry.desktopOf { desktopClosed(client, user: user) }
        agents.removeAll { $0.client == client }
        watchers.removeAll { $0.client == client }
        guard let app = entry.app else { return }
        let old = apps[app].state
        // L2: whether it was in use is judged before the closing client's sessions start to linger.
        let wasInUse = computeInUse(app)
        apps[app].clients.removeAll { $0 == client }
        apps[app].requests.removeAll { $0.client == client }
        let window = now.adding(configuration.relaunchWindow)
        for slot in apps[app].sessionSlots where sessions.isLive(slot) && sessions[slot].owner == client {
            sessions[slot].owner = nil
            apps[app].lingeringSessions += 1
            setLinger(slot, ends: window)
            announce(.sessionChanged, app: app, session: sessions[slot].id, "lingering")
        }
        if apps[app].clients.isEmpty && apps[app].restartEnds == nil {
            apps[app].state = .terminated
            apps[app].graceEnds = nil
            apps[app].inUseAtTermination = wasInUse
            apps[app].relaunchEnds = window
            deadlines.insert(window, .relaunchWindow(app))
        }
        lifecycleChanged(app, from: old)
        followDesktop(app)
        pruneprompts(app)
        markDirty(app)
    }

    /// Moves a running app between foreground and background (L1).
    mutating func move(_ app: Int, to state: RunningState) {
        let old = apps[app].state
        switch (old, state) {
        case (.foreground, .background):
            apps[app].state = .background
            setGrace(app, ends: now.adding(configuration.backgroundGrace))
        case (.background, .foreground), (.notRunning, .foreground), (.terminated, .foreground):
            apps[app].state = .foreground
            apps[app].graceEnds = nil
        case (.notRunning, .background), (.terminated, .background):
            apps[app].state = .background
        default:
            return
        }
        lifecycleChanged(app, from: old)
    }

    /// `Admin.SetAppState`: an administrator's for any user's app, anyone else's for its own (H4); without a user,
    /// the one running app of the id the caller reaches.
    mutating func adminSetAppState(_ call: CallID, appID: String, state: RunningState, user: UInt32?) {
        let scope = scope(of: call)
        if let refusal = scope.refusal(toName: user) { return fail(call, refusal) }
        let owner = user ?? (scope.administrator ? nil : scope.uid)
        let named = apps(named: appID, user: owner, scope: scope)
        let running = named.filter { apps[$0].isRunning }
        guard let app = running.first ?? named.first else {
            // H2: an installed app the user has not run yet is known, and not running.
            guard let owner, unmadeApp(AppKey(appID, user: owner)) != nil else {
                return fail(call, .noSuchApp(appID: appID))
            }
            return fail(call, Self.saysNoHello(appID, .notRunning))
        }
        guard running.count <= 1 else {
            return fail(
                call,
                .invalidParameter(
                    parameter: "user",
                    reason: "\(appID) runs for several users: name the user whose app it is"
                )
            )
        }
        guard apps[app].isRunning else { return fail(call, Self.saysNoHello(appID, apps[app].state)) }
        if let report = decidingDesktop(apps[app]), let user = apps[app].user {
            return fail(
                call,
                .invalidParameter(
                    parameter: "appId",
                    reason: "\(report.name) reports what is in front for user \(user), and it decides \(appID)'s state"
                )
            )
        }
        move(app, to: state)
        reply(call, .empty)
    }

    /// `SetAppState` of an app that is not running.
    static func saysNoHello(_ appID: String, _ state: AppState) -> LocationError {
        .invalidParameter(
            parameter: "appId",
            reason: "\(appID) is \(state.rawValue): an app must say Hello before it has a state"
        )
    }

    /// After any lifecycle change: persist, report, re-judge in use, and evaluate prompts on coming forward.
    mutating func lifecycleChanged(_ app: Int, from old: AppState) {
        let state = apps[app].state
        persist(
            .app(
                AppSnapshot(
                    appID: apps[app].appID,
                    state: state,
                    graceEnds: apps[app].graceEnds,
                    relaunchEnds: apps[app].relaunchEnds,
                    inUseAtTermination: apps[app].inUseAtTermination,
                    user: apps[app].user
                )
            )
        )
        if state != old {
            announce(.appStateChanged, app: app, "\(old.rawValue) -> \(state.rawValue)")
        }
        refreshInUse(app)
        if state == .foreground && old != .foreground {
            showWaitingHead(app)
            evaluatePrompts(app)
        }
        markDirty(app)
    }

    mutating func setGrace(_ app: Int, ends: Instant) {
        apps[app].graceEnds = ends
        deadlines.insert(ends, .backgroundGrace(app))
    }

    mutating func setLinger(_ slot: Int, ends: Instant) {
        sessions[slot].lingerEnds = ends
        deadlines.insert(ends, .lingering(sessions[slot].id))
        persist(.session(sessions[slot].snapshot))
    }

    func computeInUse(_ app: Int) -> Bool { computeInUse(apps[app]) }

    /// In use, per L2, at the current instant.
    func computeInUse(_ app: AppRuntime) -> Bool {
        switch app.state {
        case .foreground:
            return true
        case .background:
            if let ends = app.graceEnds, now < ends { return true }
            return ownsBackgroundActivity(app)
        case .terminated:
            guard app.inUseAtTermination, let ends = app.relaunchEnds else { return false }
            return now < ends
        case .notRunning:
            return false
        }
    }

    /// L2, S13: an owned background activity session; L7: or one restored at a restart and not yet taken back.
    func ownsBackgroundActivity(_ app: AppRuntime) -> Bool {
        app.sessionSlots.contains { slot in
            guard sessions.isLive(slot) else { return false }
            let session = sessions[slot]
            return session.kind == .backgroundActivity && (session.owner != nil || session.restored)
        }
    }

    /// Re-judges in use; a start of use lifts prompt suppression (§5.2), an end of use ends grants (L5).
    mutating func refreshInUse(_ app: Int) {
        let inUse = computeInUse(app)
        guard inUse != apps[app].inUse else { return }
        apps[app].inUse = inUse
        markDirty(app)
        if inUse {
            apps[app].suppressed.removeAll()
            return
        }
        changeRecord(app, to: Self.endingUseGrants(apps[app].record), by: .lifecycle)
    }

    /// L5: the record once its app stops being in use: one-time and temporary full-accuracy grants end.
    static func endingUseGrants(_ record: AuthorizationRecord) -> AuthorizationRecord {
        var record = record
        if record.oneTime {
            record.status = .notDetermined
            record.oneTime = false
            record.provisional = false
        }
        record.temporaryFullAccuracy = false
        return record
    }
}
