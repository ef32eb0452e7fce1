// Sessions, explicit, implicit and background activity, and their streams (SEMANTICS §5).
extension LocationCore {
    mutating func createSession(
        _ call: CallID,
        app: Int,
        kind: SessionKind,
        requirement asked: Requirement,
        purposeKey: String?
    ) {
        // L14: an app with no window is never in use; what it asks for While Using it needs Always.
        let requirement: Requirement = apps[app].declares.backgroundOnly && asked == .whenInUse ? .always : asked
        if purposeKey != nil || !apps[app].declares.allow(requirement) || apps[app].buttonGrant,
            let failure = apps[app].declarationFailure(for: requirement, purposeKey: purposeKey)
        {
            return fail(call, failure)
        }
        guard let slot = addSession(call, app: app, kind: kind, requirement: requirement, purposeKey: purposeKey)
        else { return }
        reply(call, .session(view(ofSlot: slot)))
    }

    /// Creates a session owned by the caller and returns its slot; past the limit (S5), fails the call, returns `nil`.
    mutating func addSession(
        _ call: CallID,
        app: Int,
        kind: SessionKind,
        requirement: Requirement,
        purposeKey: String?,
        stream: CallID? = nil
    ) -> Int? {
        guard apps[app].sessionSlots.count < configuration.maxSessionsPerApp else {
            fail(call, .limitExceeded(limit: "max-sessions-per-app", maximum: configuration.maxSessionsPerApp))
            return nil
        }
        let user = apps[app].user
        // H8: one user's apps together hold at most max-sessions-per-uid.
        if let user, sessionsByUser[account(user), default: 0] >= configuration.maxSessionsPerUID {
            fail(call, .limitExceeded(limit: "max-sessions-per-uid", maximum: configuration.maxSessionsPerUID))
            return nil
        }
        let id = SessionID(epoch: epoch, number: nextSessionNumber)
        nextSessionNumber += 1
        // The caller's connection was looked up when the call arrived.
        let pid = call.client == caller.client ? caller.pid : clients[call.client]?.pid ?? 0
        let appID = apps[app].appID
        let layering = apps[app].layering
        if kind != .implicit {
            persist(
                .session(
                    SessionSnapshot(
                        id: id,
                        appID: appID,
                        kind: kind,
                        requirement: requirement,
                        purposeKey: purposeKey,
                        ownerPID: pid,
                        lingerEnds: nil,
                        user: user
                    )
                )
            )
        }
        var session = SessionEntry(
            id: id,
            app: app,
            appID: appID,
            user: user,
            kind: kind,
            requirement: requirement,
            purposeKey: purposeKey,
            owner: call.client,
            ownerPID: pid
        )
        session.implicitStream = stream
        let slot = sessions.insert(consume session, serial: apps[app].serial)
        apps[app].sessionSlots.append(slot)
        apps[app].count(kind, requirement, 1)
        if let user { sessionsByUser[account(user), default: 0] += 1 }
        if requirement >= .whenInUse { demandingSessions += 1 }
        announce(.sessionCreated, app: app, session: id, "\(kind.rawValue) \(requirement.rawValue)")
        cover(by: slot)
        liftSuppression(app, requirement: requirement, purposeKey: purposeKey)
        if kind == .backgroundActivity { refreshInUse(app) }
        evaluatePrompts(app)
        if apps[app].layering != layering {
            markDirty(app)
        } else {
            dirtySessions.append((slot, id))
        }
        return slot
    }

    /// Ends the lingering sessions of its app that the session in `slot` covers (L4); a process never covers its own (L8).
    mutating func cover(by slot: Int) {
        let app = sessions[slot].app
        guard apps[app].lingeringSessions > 0 else { return }
        let session = sessions[slot]
        for other in apps[app].sessionSlots where other != slot && sessions.isLive(other) {
            let lingering = sessions[other]
            guard lingering.owner == nil, lingering.ownerPID != session.ownerPID, session.covers(lingering)
            else { continue }
            endSession(other, final: true)
        }
    }

    /// A new or resumed session asks again for the prompts it calls for (§5.2).
    mutating func liftSuppression(_ app: Int, requirement: Requirement, purposeKey: String?) {
        guard !apps[app].suppressed.isEmpty else { return }
        if requirement >= .whenInUse { apps[app].suppressed.remove(.authorization) }
        if requirement == .always { apps[app].suppressed.remove(.alwaysUpgrade) }
        if let purposeKey { apps[app].suppressed.remove(.accuracy(purposeKey)) }
    }

    /// Finds the slot of a session of the caller's app by its wire id (I2: another app's session does not exist).
    func lookup(_ text: String, app: Int) -> Result<Int, LocationError> {
        guard let id = SessionID(text) else { return .failure(.noSuchSession(id: text)) }
        if let slot = sessions.slot(of: id), sessions[slot].app == app { return .success(slot) }
        if wasMinted(id, by: app) || apps[app].endedSessions.contains(id) {
            return .failure(.sessionInvalidated(id: text))
        }
        return .failure(.noSuchSession(id: text))
    }

    mutating func resumeSession(_ call: CallID, app: Int, id text: String) {
        let slot: Int
        switch lookup(text, app: app) {
        case .failure(let error): return fail(call, error)
        case .success(let found): slot = found
        }
        let session = sessions[slot]
        if session.owner == call.client { return reply(call, .session(view(ofSlot: slot))) }
        guard session.owner == nil, session.kind != .implicit else { return fail(call, .noSuchSession(id: text)) }
        sessions[slot].owner = call.client
        apps[app].lingeringSessions -= 1
        sessions[slot].ownerPID = clients[call.client]?.pid ?? 0
        sessions[slot].lingerEnds = nil
        sessions[slot].restored = false
        persist(.session(sessions[slot].snapshot))
        announce(.sessionChanged, app: app, session: session.id, "resumed")
        // L4: a resume takes one session back and ends no other: after a restart every process of the app
        // resumes its own, and one must not end a sibling's before that process has taken it (R3).
        liftSuppression(app, requirement: session.requirement, purposeKey: session.purposeKey)
        refreshInUse(app)
        evaluatePrompts(app)
        markDirty(app)
        reply(call, .session(view(ofSlot: slot)))
    }

    mutating func invalidateSession(_ call: CallID, app: Int, id text: String) {
        switch lookup(text, app: app) {
        case .failure(let error): fail(call, error)
        case .success(let slot):
            endSession(slot, final: true)
            reply(call, .empty)
        }
    }

    /// Ends a session for good (S3): its diagnostics streams get a final reply, an implicit one's stream ends.
    ///
    /// A slot that is already empty (the session ended earlier in the same event) is left alone.
    mutating func endSession(_ slot: Int, final: Bool) {
        guard let session = sessions.remove(slot) else { return }
        let app = session.app
        // The final mask is the one before the session's counts leave the app; only its streams need it.
        let mask = session.diagnosticStreams.isEmpty ? [] : context(of: app).mask(of: session)
        let layering = apps[app].layering
        if session.owner == nil { apps[app].lingeringSessions -= 1 }
        apps[app].sessionSlots.remove(slot)
        if !wasMinted(session.id, by: app) { apps[app].endedSessions.insert(session.id) }
        apps[app].count(session.kind, session.requirement, -1)
        if session.requirement >= .whenInUse { demandingSessions -= 1 }
        if session.diagnosticStreams.count == 1 {
            let call = session.diagnosticStreams[0].call
            if streams.removeValue(forKey: call) != nil {
                clients[call.client]?.streams.removeAll { $0 == call }
                messages.append(.end(call, .diagnostic(mask, ended: true)))
            }
        } else if !session.diagnosticStreams.isEmpty {
            // Each connection's list is pruned once, not searched once per stream (F6).
            var ended: Set<CallID> = []
            for stream in session.diagnosticStreams where streams.removeValue(forKey: stream.call) != nil {
                ended.insert(stream.call)
                messages.append(.end(stream.call, .diagnostic(mask, ended: true)))
            }
            for client in Set(ended.map(\.client)) { clients[client]?.streams.removeAll { ended.contains($0) } }
        }
        if let stream = session.implicitStream { closeStream(stream, final: final) }
        for stream in session.boundStreams { closeStream(stream, final: true) }
        if session.kind != .implicit {
            persist(.sessionRemoved(AppKey(session.appID, user: session.user), session.id))
        }
        if let user = session.user { releaseSession(of: user) }
        announce(.sessionEnded, app: app, session: session.id, session.kind.rawValue)
        if session.kind == .backgroundActivity { refreshInUse(app) }
        // P12: the session may have been the app's use of location in the background.
        if apps[app].alwaysUseSince != nil { markDirty(app) }
        pruneprompts(app)
        // The others re-evaluate only if the layering moved; in-use and prompt changes mark the app themselves.
        if apps[app].layering != layering { markDirty(app) }
    }

    mutating func sessionDiagnostics(_ call: CallID, app: Int, id text: String) {
        switch lookup(text, app: app) {
        case .failure(let error): fail(call, error)
        case .success(let slot):
            let mask = context(of: app).mask(of: sessions[slot])
            sessions[slot].diagnosticStreams.append(DiagnosticStream(call: call, lastMask: mask))
            openStream(call, StreamEntry(kind: .sessionDiagnostics(sessions[slot].id)))
            emit(call, .diagnostic(mask, ended: false))
        }
    }

    mutating func beginBackgroundActivity(_ call: CallID, app: Int) {
        let runtime = apps[app]
        let manifest = runtime.declared
        guard manifest.backgroundLocation else {
            return fail(
                call,
                .backgroundActivityUnavailable(
                    reason: "add \"location\" to UIBackgroundModes in \(manifest.source), then reload locd"
                )
            )
        }
        guard runtime.state == .foreground else {
            return fail(
                call,
                .backgroundActivityUnavailable(
                    reason: "the app is \(runtime.state.rawValue): begin background activity while in the foreground"
                )
            )
        }
        let status = effectiveRecord(runtime).status
        guard status.isAuthorized else {
            return fail(
                call,
                .backgroundActivityUnavailable(
                    reason:
                        "the app is not authorized (status \(status.rawValue)): create a session and get authorized first"
                )
            )
        }
        guard let slot = addSession(call, app: app, kind: .backgroundActivity, requirement: .whenInUse, purposeKey: nil)
        else { return }
        reply(call, .session(view(ofSlot: slot)))
    }

    /// `LiveUpdates`, bound to one of the app's sessions when it names one (U18): that session must be open and the
    /// app's own (S3, I2), and its end ends the stream with a final reply.
    mutating func startLiveUpdates(
        _ call: CallID,
        app: Int,
        _ configuration: LiveConfiguration,
        reducedByChoice: Bool,
        session text: String?
    ) {
        guard let text else {
            return startLocationStream(call, app: app, live: configuration, reducedByChoice: reducedByChoice)
        }
        switch lookup(text, app: app) {
        case .failure(let error): fail(call, error)
        case .success(let slot):
            let id = sessions[slot].id
            startLocationStream(call, app: app, live: configuration, reducedByChoice: reducedByChoice, boundTo: id)
            // Looked up again: starting the stream may have added an implicit session to the table.
            if streams[call] != nil, let slot = sessions.slot(of: id) { sessions[slot].boundStreams.append(call) }
        }
    }

    /// `LiveUpdates` and `MonitorEvents`: an implicit session unless the app holds an explicit one (S10, S11).
    mutating func startLocationStream(
        _ call: CallID,
        app: Int,
        monitor: String? = nil,
        live configuration: LiveConfiguration = .standard,
        reducedByChoice: Bool = false,
        boundTo session: SessionID? = nil
    ) {
        let manifest = apps[app].declared
        let optedOut = manifest.requireExplicitServiceSession
        // P11: a location button's grant serves streams without a description (seed 002).
        if !optedOut, manifest.whenInUseUsageDescription == nil, !apps[app].buttonGrant {
            return fail(call, manifest.missing(Manifest.whenInUseKey))
        }
        var implicit: SessionID?
        if !optedOut && apps[app].explicitDemanding == 0 {
            guard
                let slot = addSession(
                    call,
                    app: app,
                    kind: .implicit,
                    requirement: .whenInUse,
                    purposeKey: nil,
                    stream: call
                )
            else { return }
            implicit = sessions[slot].id
        } else if !optedOut {
            apps[app].suppressed.remove(.authorization)
            evaluatePrompts(app)
        }
        let kind: StreamEntry.Kind =
            monitor == nil ? .liveUpdates(app, implicit: implicit) : .monitorEvents(app, implicit: implicit)
        apps[app].locationStreams.append(call)
        openLocationStreams += 1
        let delivery =
            monitor == nil ? LocationDelivery(configuration: configuration, reducedByChoice: reducedByChoice) : nil
        openStream(call, StreamEntry(kind: kind, delivery: delivery, boundTo: session))
        // The first update at once (U1), with the location if it may carry one.
        refreshLocationStream(call, context: context(of: app))
        markDirty(app)
    }

    mutating func watchAuthorization(_ call: CallID, app: Int) {
        let view = authorizationView(app)
        apps[app].authorizationWatchers.append(call)
        openStream(call, StreamEntry(kind: .authorization(app), lastAuthorization: view))
        emit(call, .authorization(view))
    }

    mutating func openStream(_ call: CallID, _ entry: StreamEntry) {
        streams[call] = entry
        clients[call.client]?.streams.append(call)
    }

    /// Closes the streams of a connection that is gone, silently, in time linear in their number (F6).
    ///
    /// Closed one by one, each would search its app's or session's list for itself: a connection with
    /// 200,000 streams on one session took 36 s to close. The lists are pruned once per app and session
    /// here, against a set of the closing streams, and each stream is then closed without its search.
    mutating func closeStreams(_ closing: [CallID]) {
        guard closing.count > 1 else {
            for call in closing { closeStream(call, final: false) }
            return
        }
        let gone = Set(closing)
        var appsToPrune: Set<Int> = []
        var sessionsToPrune: Set<SessionID> = []
        for call in closing {
            if let id = streams[call]?.boundTo { sessionsToPrune.insert(id) }
            switch streams[call]?.kind {
            case .authorization(let app)?, .liveUpdates(let app, _)?, .monitorEvents(let app, _)?:
                appsToPrune.insert(app)
            case .sessionDiagnostics(let id)?: sessionsToPrune.insert(id)
            case .prompts?, .watch?, nil: break
            }
        }
        for app in appsToPrune {
            apps[app].authorizationWatchers.removeAll { gone.contains($0) }
            apps[app].locationStreams.removeAll { gone.contains($0) }
        }
        for id in sessionsToPrune {
            guard let slot = sessions.slot(of: id) else { continue }
            sessions[slot].diagnosticStreams.removeAll { gone.contains($0.call) }
            sessions[slot].boundStreams.removeAll { gone.contains($0) }
        }
        let agentCount = agents.count
        agents.removeAll { gone.contains($0) }
        watchers.removeAll { gone.contains($0) }
        for call in closing { closeStream(call, final: false, pruned: true) }
        if agents.count < agentCount { agentsLeft() }
    }

    /// Closes a stream: with a final reply when the daemon ends it, silently when its connection is gone.
    /// - Parameter pruned: the stream is already out of its app's, session's and connection's lists.
    mutating func closeStream(_ call: CallID, final: Bool, pruned: Bool = false) {
        guard let entry = streams.removeValue(forKey: call) else { return }
        if !pruned { clients[call.client]?.streams.removeAll { $0 == call } }
        // A session that is ending is out of the table already.
        if !pruned, let id = entry.boundTo, let slot = sessions.slot(of: id) {
            sessions[slot].boundStreams.removeAll { $0 == call }
        }
        switch entry.kind {
        case .authorization(let app):
            if !pruned { apps[app].authorizationWatchers.removeAll { $0 == call } }
            if final { messages.append(.end(call, .authorization(authorizationView(app)))) }
        case .sessionDiagnostics(let id):
            var lastMask: DiagnosticMask = []
            if !pruned, let slot = sessions.slot(of: id),
                let position = sessions[slot].diagnosticStreams.firstIndex(where: { $0.call == call })
            {
                lastMask = sessions[slot].diagnosticStreams.remove(at: position).lastMask
                sessions[slot].diagnosticStreams.removeAll { $0.call == call }
            }
            if final { messages.append(.end(call, .diagnostic(lastMask, ended: true))) }
        case .liveUpdates(let app, let implicit), .monitorEvents(let app, let implicit):
            if !pruned { apps[app].locationStreams.removeAll { $0 == call } }
            monitorStreams.removeValue(forKey: call)
            openLocationStreams -= 1
            if final {
                let mask = entry.lastMask ?? []
                if case .liveUpdates = entry.kind {
                    messages.append(.end(call, .update(mask)))
                } else {
                    messages.append(.end(call, .monitor(mask)))
                }
            }
            if let implicit, let slot = sessions.slot(of: implicit) {
                sessions[slot].implicitStream = nil
                endSession(slot, final: final)
            }
            markDirty(app)
        case .prompts:
            if !pruned {
                agents.removeAll { $0 == call }
                agentsLeft()
            }
            everyoneAgents[call] = nil
            if final { messages.append(.end(call, nil)) }
        case .watch:
            if !pruned { watchers.removeAll { $0 == call } }
            if final { messages.append(.end(call, nil)) }
        }
    }

    func sessionViews(of key: AppKey) -> [SessionView] {
        guard let app = apps.handle(key) else { return [] }
        return sessionViews(of: app)
    }

    func sessionViews(of app: Int) -> [SessionView] {
        let context = context(of: app)
        return apps[app].sessionSlots.compactMap { slot in
            sessions.isLive(slot) ? context.view(of: sessions[slot], now: now) : nil
        }
    }

    /// Whether this core created session `id` for the app: then, once it is no longer live, it has ended (S3).
    ///
    /// The session table remembers the app of every number it gave out, which replaces a set of ended
    /// ids and its hash insertion at every end; only restored sessions go to ``AppRuntime/endedSessions``.
    func wasMinted(_ id: SessionID, by app: Int) -> Bool { sessions.wasNumbered(id, forSerial: apps[app].serial) }

    /// The view of the session in a live slot, read field by field (passing the entry would copy it).
    func view(ofSlot slot: Int) -> SessionView {
        let context = context(of: sessions[slot].app)
        let requirement = sessions[slot].requirement
        let mask = context.mask(
            requirement: requirement,
            kind: sessions[slot].kind,
            purposeKey: sessions[slot].purposeKey
        )
        let lingerEnds = sessions[slot].lingerEnds
        return SessionView(
            id: sessions[slot].id,
            appID: sessions[slot].appID,
            kind: sessions[slot].kind,
            requirement: requirement,
            purposeKey: sessions[slot].purposeKey,
            state: context.state(owned: sessions[slot].owner != nil, requirement: requirement, mask: mask),
            diagnostic: mask,
            deadline: lingerEnds,
            remaining: lingerEnds.map { $0.since(now) },
            user: sessions[slot].user
        )
    }

    func view(of session: SessionEntry, context: AppContext) -> SessionView { context.view(of: session, now: now) }
}
