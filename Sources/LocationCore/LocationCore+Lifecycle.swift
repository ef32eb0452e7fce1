// App lifecycle and "in use" (SEMANTICS §4).
extension LocationCore {
    mutating func hello(_ call: CallID, appID: String, state requested: RunningState?) {
        let client = call.client
        if let bound = clients[client]?.appID {
            guard bound == appID else {
                return fail(
                    call,
                    .invalidParameter(
                        parameter: "appId",
                        reason: "this connection already speaks for \(bound): open a new connection for \(appID)"
                    )
                )
            }
            return reply(call, helloReply(appID))
        }
        if apps[appID]?.manifest == nil {
            guard configuration.allowUnknownApps else { return fail(call, .appUnknown(appID: appID)) }
            if apps[appID] == nil {
                apps[appID] = AppRuntime(appID: appID, manifest: nil)
                apps[appID]!.lastAuthorization = authorizationView(appID)
            }
            apps[appID]!.manifest = .unknownApp(appID)
        }
        guard apps[appID]!.clients.count < configuration.maxClientsPerApp else {
            return fail(call, .limitExceeded(limit: "max-clients-per-app", maximum: configuration.maxClientsPerApp))
        }
        clients[client]!.appID = appID
        let old = apps[appID]!.state
        apps[appID]!.clients.append(client)

        if apps[appID]!.restartEnds != nil {
            // L7: after a daemon restart the app keeps its state; the client is just coming back.
            apps[appID]!.restartEnds = nil
        } else {
            switch old {
            case .notRunning:
                apps[appID]!.state = requested == .background ? .background : .foreground
                apps[appID]!.graceEnds = nil
            case .terminated:
                let app = apps[appID]!
                let windowOpen = app.relaunchEnds.map { now < $0 } ?? false
                if requested == .background {
                    apps[appID]!.state = .background
                    // L1: a background relaunch of an app that was in use starts its grace now.
                    if app.inUseAtTermination && windowOpen {
                        setGrace(appID, ends: now.adding(configuration.backgroundGrace))
                    }
                } else {
                    apps[appID]!.state = .foreground
                }
                apps[appID]!.relaunchEnds = nil
                apps[appID]!.inUseAtTermination = false
            case .foreground, .background:
                break
            }
        }
        // L4: lingering sessions wait at least relaunch-adopt for the new process to take them.
        let adopt = now.adding(configuration.relaunchAdopt)
        for id in apps[appID]!.sessions {
            guard let ends = sessions[id]?.lingerEnds, ends < adopt else { continue }
            setLinger(id, ends: adopt)
        }
        lifecycleChanged(appID, from: old)
        reply(call, helloReply(appID))
    }

    private func helloReply(_ appID: String) -> Reply {
        let lingering = sessionViews(of: appID).filter { $0.state == .lingering }
        return .hello(authorization: authorizationView(appID), lingeringSessions: lingering)
    }

    /// `Goodbye` speaks for the calling process: its sessions end now, its connections are unbound (L3).
    mutating func goodbye(_ call: CallID) {
        guard let caller = clients[call.client], let appID = caller.appID else { return }
        let old = apps[appID]!.state
        let processClients = apps[appID]!.clients.filter { clients[$0]?.pid == caller.pid }
        // The app's last process: its prompts go first, so ending its sessions shows no next head (S6).
        if processClients.count == apps[appID]!.clients.count { cancelPrompts(of: appID) }
        for client in processClients {
            for id in apps[appID]!.sessions where sessions[id]?.owner == client {
                endSession(id, final: true)
            }
            for stream in clients[client]!.streams { closeStream(stream, final: true) }
            clients[client]!.streams = []
            clients[client]!.appID = nil
            apps[appID]!.clients.removeAll { $0 == client }
            apps[appID]!.requests.removeAll { $0.client == client }
        }
        if apps[appID]!.clients.isEmpty {
            apps[appID]!.state = .notRunning
            apps[appID]!.graceEnds = nil
            apps[appID]!.relaunchEnds = nil
            apps[appID]!.restartEnds = nil
            apps[appID]!.inUseAtTermination = false
            for id in apps[appID]!.sessions { endSession(id, final: true) }
            cancelPrompts(of: appID)
        }
        lifecycleChanged(appID, from: old)
        pruneprompts(appID)
        reply(call, .empty)
    }

    /// A connection closed without `Goodbye`: its sessions linger, and a last client terminates the app (L3).
    mutating func disconnect(_ client: ClientID) {
        guard let entry = clients.removeValue(forKey: client) else { return }
        for stream in entry.streams { closeStream(stream, final: false) }
        agents.removeAll { $0.client == client }
        watchers.removeAll { $0.client == client }
        guard let appID = entry.appID, apps[appID] != nil else { return }
        let old = apps[appID]!.state
        // L2: whether it was in use is judged before the closing client's sessions start to linger.
        let app = apps[appID]!
        let wasInUse = computeInUse(app)
        apps[appID]!.clients.removeAll { $0 == client }
        apps[appID]!.requests.removeAll { $0.client == client }
        let window = now.adding(configuration.relaunchWindow)
        for id in apps[appID]!.sessions where sessions[id]?.owner == client {
            sessions[id]!.owner = nil
            apps[appID]!.lingeringSessions += 1
            setLinger(id, ends: window)
            announce(.sessionChanged, app: appID, session: id, "lingering")
        }
        if apps[appID]!.clients.isEmpty && apps[appID]!.restartEnds == nil {
            apps[appID]!.state = .terminated
            apps[appID]!.graceEnds = nil
            apps[appID]!.inUseAtTermination = wasInUse
            apps[appID]!.relaunchEnds = window
            deadlines.insert(window, .relaunchWindow(appID))
        }
        lifecycleChanged(appID, from: old)
        pruneprompts(appID)
        markDirty(appID)
    }

    /// Moves a running app between foreground and background (L1).
    mutating func move(_ appID: String, to state: RunningState) {
        let old = apps[appID]!.state
        switch (old, state) {
        case (.foreground, .background):
            apps[appID]!.state = .background
            setGrace(appID, ends: now.adding(configuration.backgroundGrace))
        case (.background, .foreground), (.notRunning, .foreground), (.terminated, .foreground):
            apps[appID]!.state = .foreground
            apps[appID]!.graceEnds = nil
        case (.notRunning, .background), (.terminated, .background):
            apps[appID]!.state = .background
        default:
            return
        }
        lifecycleChanged(appID, from: old)
    }

    mutating func adminSetAppState(_ call: CallID, appID: String, state: RunningState) {
        guard let app = apps[appID] else { return fail(call, .noSuchApp(appID: appID)) }
        guard app.isRunning else {
            return fail(
                call,
                .invalidParameter(
                    parameter: "appId",
                    reason: "\(appID) is \(app.state.rawValue): an app must say Hello before it has a state"
                )
            )
        }
        move(appID, to: state)
        reply(call, .empty)
    }

    /// After any lifecycle change: persist, report, re-judge in use, and evaluate prompts on coming forward.
    mutating func lifecycleChanged(_ appID: String, from old: AppState) {
        let app = apps[appID]!
        persist(
            .app(
                AppSnapshot(
                    appID: appID,
                    state: app.state,
                    graceEnds: app.graceEnds,
                    relaunchEnds: app.relaunchEnds,
                    inUseAtTermination: app.inUseAtTermination
                )
            )
        )
        if app.state != old {
            announce(.appStateChanged, app: appID, "\(old.rawValue) -> \(app.state.rawValue)")
        }
        refreshInUse(appID)
        if app.state == .foreground && old != .foreground {
            showWaitingHead(appID)
            evaluatePrompts(appID)
        }
        markDirty(appID)
    }

    mutating func setGrace(_ appID: String, ends: Instant) {
        apps[appID]!.graceEnds = ends
        deadlines.insert(ends, .backgroundGrace(appID))
    }

    mutating func setLinger(_ id: SessionID, ends: Instant) {
        sessions[id]!.lingerEnds = ends
        deadlines.insert(ends, .lingering(id))
        persist(.session(sessions[id]!.snapshot))
    }

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
        app.sessions.contains { id in
            guard let session = sessions[id] else { return false }
            return session.kind == .backgroundActivity && (session.owner != nil || session.restored)
        }
    }

    /// Re-judges in use; a start of use lifts prompt suppression (§5.2), an end of use ends grants (L5).
    mutating func refreshInUse(_ appID: String) {
        let app = apps[appID]!
        let inUse = computeInUse(app)
        guard inUse != apps[appID]!.inUse else { return }
        apps[appID]!.inUse = inUse
        markDirty(appID)
        if inUse {
            apps[appID]!.suppressed.removeAll()
            return
        }
        changeRecord(appID, to: Self.endingUseGrants(apps[appID]!.record), by: .lifecycle)
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
