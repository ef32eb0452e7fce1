// Sessions, explicit, implicit and background activity, and their streams (SEMANTICS §5).
extension LocationCore {
    mutating func createSession(
        _ call: CallID,
        appID: String,
        kind: SessionKind,
        requirement: Requirement,
        purposeKey: String?
    ) {
        let manifest = apps[appID]!.declared
        if let key = manifest.missingDescription(for: requirement) {
            return fail(call, .usageDescriptionMissing(key: key, manifest: manifest.source))
        }
        if let purposeKey, manifest.temporaryUsageDescriptions[purposeKey] == nil {
            return fail(call, .unknownPurposeKey(purposeKey: purposeKey, manifest: manifest.source))
        }
        guard let id = addSession(call, appID: appID, kind: kind, requirement: requirement, purposeKey: purposeKey)
        else { return }
        reply(call, .session(sessionView(id)!))
    }

    /// Creates a session owned by the caller; fails the call and returns `nil` past the limit (S5).
    mutating func addSession(
        _ call: CallID,
        appID: String,
        kind: SessionKind,
        requirement: Requirement,
        purposeKey: String?,
        stream: CallID? = nil
    ) -> SessionID? {
        guard apps[appID]!.sessions.count < configuration.maxSessionsPerApp else {
            fail(call, .limitExceeded(limit: "max-sessions-per-app", maximum: configuration.maxSessionsPerApp))
            return nil
        }
        let id = SessionID(epoch: epoch, number: nextSessionNumber)
        nextSessionNumber += 1
        let pid = clients[call.client]?.pid ?? 0
        var session = SessionEntry(
            id: id,
            appID: appID,
            kind: kind,
            requirement: requirement,
            purposeKey: purposeKey,
            owner: call.client,
            ownerPID: pid
        )
        session.implicitStream = stream
        let layering = apps[appID]!.layering
        sessions[id] = session
        apps[appID]!.sessions.append(id)
        apps[appID]!.count(session, 1)
        if requirement >= .whenInUse { demandingSessions += 1 }
        if kind != .implicit { persist(.session(session.snapshot)) }
        announce(.sessionCreated, app: appID, session: id, "\(kind.rawValue) \(requirement.rawValue)")
        cover(by: id)
        liftSuppression(appID, for: session)
        if kind == .backgroundActivity { refreshInUse(appID) }
        evaluatePrompts(appID)
        if apps[appID]!.layering != layering {
            markDirty(appID)
        } else {
            dirtySessions.append(id)
        }
        return id
    }

    /// Ends the lingering sessions of the same app that `id` covers (L4); a process never covers its own.
    mutating func cover(by id: SessionID) {
        guard let appID = sessions[id]?.appID, apps[appID]!.lingeringSessions > 0 else { return }
        let session = sessions[id]!
        for other in apps[appID]!.sessions where other != id {
            guard let lingering = sessions[other], lingering.owner == nil, lingering.ownerPID != session.ownerPID,
                session.covers(lingering)
            else { continue }
            endSession(other, final: true)
        }
    }

    /// A new or resumed session asks again for the prompts it calls for (§5.2).
    mutating func liftSuppression(_ appID: String, for session: SessionEntry) {
        guard !apps[appID]!.suppressed.isEmpty else { return }
        if session.requirement >= .whenInUse { apps[appID]!.suppressed.remove(.authorization) }
        if session.requirement == .always { apps[appID]!.suppressed.remove(.alwaysUpgrade) }
        if let key = session.purposeKey { apps[appID]!.suppressed.remove(.accuracy(key)) }
    }

    /// Finds a session of the caller's app by its wire id (I2: another app's session does not exist).
    func lookup(_ text: String, appID: String) -> Result<SessionID, LocationError> {
        guard let id = SessionID(text) else { return .failure(.noSuchSession(id: text)) }
        if sessions[id]?.appID == appID { return .success(id) }
        if apps[appID]?.endedSessions.contains(id) == true { return .failure(.sessionInvalidated(id: text)) }
        return .failure(.noSuchSession(id: text))
    }

    mutating func resumeSession(_ call: CallID, appID: String, id text: String) {
        let id: SessionID
        switch lookup(text, appID: appID) {
        case .failure(let error): return fail(call, error)
        case .success(let found): id = found
        }
        let session = sessions[id]!
        if session.owner == call.client { return reply(call, .session(sessionView(id)!)) }
        guard session.owner == nil, session.kind != .implicit else { return fail(call, .noSuchSession(id: text)) }
        sessions[id]!.owner = call.client
        apps[appID]!.lingeringSessions -= 1
        sessions[id]!.ownerPID = clients[call.client]?.pid ?? 0
        sessions[id]!.lingerEnds = nil
        sessions[id]!.restored = false
        persist(.session(sessions[id]!.snapshot))
        announce(.sessionChanged, app: appID, session: id, "resumed")
        cover(by: id)
        liftSuppression(appID, for: session)
        refreshInUse(appID)
        evaluatePrompts(appID)
        markDirty(appID)
        reply(call, .session(sessionView(id)!))
    }

    mutating func invalidateSession(_ call: CallID, appID: String, id text: String) {
        switch lookup(text, appID: appID) {
        case .failure(let error): fail(call, error)
        case .success(let id):
            endSession(id, final: true)
            reply(call, .empty)
        }
    }

    /// Ends a session for good (S3): its diagnostics streams get a final reply, an implicit one's stream ends.
    mutating func endSession(_ id: SessionID, final: Bool) {
        guard let session = sessions.removeValue(forKey: id) else { return }
        let appID = session.appID
        // Bound first: `context(of: apps[appID]!)` would copy the whole core to pass the app.
        let app = apps[appID]!
        let context = context(of: app)
        let mask = self.mask(of: session, context: context)
        let layering = apps[appID]!.layering
        if session.owner == nil { apps[appID]!.lingeringSessions -= 1 }
        apps[appID]!.sessions.removeAll { $0 == id }
        apps[appID]!.endedSessions.insert(id)
        apps[appID]!.count(session, -1)
        if session.requirement >= .whenInUse { demandingSessions -= 1 }
        for stream in session.diagnosticStreams {
            guard streams.removeValue(forKey: stream) != nil else { continue }
            clients[stream.client]?.streams.removeAll { $0 == stream }
            messages.append(.end(stream, .diagnostic(mask, ended: true)))
        }
        if let stream = session.implicitStream { closeStream(stream, final: final) }
        if session.kind != .implicit { persist(.sessionRemoved(id)) }
        announce(.sessionEnded, app: appID, session: id, session.kind.rawValue)
        if session.kind == .backgroundActivity { refreshInUse(appID) }
        pruneprompts(appID)
        // The others re-evaluate only if the layering moved; in-use and prompt changes mark the app themselves.
        if apps[appID]!.layering != layering { markDirty(appID) }
    }

    mutating func sessionDiagnostics(_ call: CallID, appID: String, id text: String) {
        switch lookup(text, appID: appID) {
        case .failure(let error): fail(call, error)
        case .success(let id):
            let mask = sessionView(id)!.diagnostic
            sessions[id]!.diagnosticStreams.append(call)
            openStream(call, StreamEntry(kind: .sessionDiagnostics(id), lastMask: mask))
            emit(call, .diagnostic(mask, ended: false))
        }
    }

    mutating func beginBackgroundActivity(_ call: CallID, appID: String) {
        let app = apps[appID]!
        let manifest = app.declared
        guard manifest.backgroundLocation else {
            return fail(
                call,
                .backgroundActivityUnavailable(
                    reason: "add \"location\" to UIBackgroundModes in \(manifest.source), then reload locd"
                )
            )
        }
        guard app.state == .foreground else {
            return fail(
                call,
                .backgroundActivityUnavailable(
                    reason: "the app is \(app.state.rawValue): begin background activity while in the foreground"
                )
            )
        }
        let status = effectiveRecord(app).status
        guard status.isAuthorized else {
            return fail(
                call,
                .backgroundActivityUnavailable(
                    reason:
                        "the app is not authorized (status \(status.rawValue)): create a session and get authorized first"
                )
            )
        }
        guard
            let id = addSession(call, appID: appID, kind: .backgroundActivity, requirement: .whenInUse, purposeKey: nil)
        else { return }
        reply(call, .session(sessionView(id)!))
    }

    /// `LiveUpdates` and `MonitorEvents`: an implicit session unless the app holds an explicit one (S10, S11).
    mutating func startLocationStream(_ call: CallID, appID: String, monitor: String?) {
        let app = apps[appID]!
        let manifest = app.declared
        let optedOut = manifest.requireExplicitServiceSession
        if !optedOut, manifest.whenInUseUsageDescription == nil {
            return fail(call, .usageDescriptionMissing(key: Manifest.whenInUseKey, manifest: manifest.source))
        }
        var implicit: SessionID?
        if !optedOut && app.explicitDemanding == 0 {
            guard
                let id = addSession(
                    call,
                    appID: appID,
                    kind: .implicit,
                    requirement: .whenInUse,
                    purposeKey: nil,
                    stream: call
                )
            else { return }
            implicit = id
        } else if !optedOut {
            apps[appID]!.suppressed.remove(.authorization)
            evaluatePrompts(appID)
        }
        let kind: StreamEntry.Kind =
            monitor == nil ? .liveUpdates(appID, implicit: implicit) : .monitorEvents(appID, implicit: implicit)
        apps[appID]!.locationStreams.append(call)
        openLocationStreams += 1
        let mask = streamMask(kind, context: context(of: apps[appID]!))
        openStream(call, StreamEntry(kind: kind, lastMask: mask))
        emit(call, monitor == nil ? .update(mask) : .monitor(mask))
        markDirty(appID)
    }

    mutating func watchAuthorization(_ call: CallID, appID: String) {
        let view = authorizationView(appID)
        apps[appID]!.authorizationWatchers.append(call)
        openStream(call, StreamEntry(kind: .authorization(appID), lastAuthorization: view))
        emit(call, .authorization(view))
    }

    mutating func openStream(_ call: CallID, _ entry: StreamEntry) {
        streams[call] = entry
        clients[call.client]?.streams.append(call)
    }

    /// Closes a stream: with a final reply when the daemon ends it, silently when its connection is gone.
    mutating func closeStream(_ call: CallID, final: Bool) {
        guard let entry = streams.removeValue(forKey: call) else { return }
        clients[call.client]?.streams.removeAll { $0 == call }
        switch entry.kind {
        case .authorization(let appID):
            apps[appID]?.authorizationWatchers.removeAll { $0 == call }
            if final { messages.append(.end(call, .authorization(authorizationView(appID)))) }
        case .sessionDiagnostics(let id):
            sessions[id]?.diagnosticStreams.removeAll { $0 == call }
            if final { messages.append(.end(call, .diagnostic(entry.lastMask ?? [], ended: true))) }
        case .liveUpdates(let appID, let implicit), .monitorEvents(let appID, let implicit):
            apps[appID]?.locationStreams.removeAll { $0 == call }
            openLocationStreams -= 1
            if final {
                let mask = entry.lastMask ?? []
                if case .liveUpdates = entry.kind {
                    messages.append(.end(call, .update(mask)))
                } else {
                    messages.append(.end(call, .monitor(mask)))
                }
            }
            if let implicit, sessions[implicit] != nil {
                sessions[implicit]!.implicitStream = nil
                endSession(implicit, final: final)
            }
            markDirty(appID)
        case .prompts:
            agents.removeAll { $0 == call }
            if final { messages.append(.end(call, nil)) }
        case .watch:
            watchers.removeAll { $0 == call }
            if final { messages.append(.end(call, nil)) }
        }
    }

    func sessionViews(of appID: String) -> [SessionView] {
        guard let app = apps[appID] else { return [] }
        let context = context(of: app)
        return app.sessions.compactMap { id in sessions[id].map { view(of: $0, context: context) } }
    }

    func view(of session: SessionEntry, context: AppContext) -> SessionView {
        let mask = self.mask(of: session, context: context)
        return SessionView(
            id: session.id,
            appID: session.appID,
            kind: session.kind,
            requirement: session.requirement,
            purposeKey: session.purposeKey,
            state: state(of: session, mask: mask, context: context),
            diagnostic: mask,
            deadline: session.lingerEnds,
            remaining: session.lingerEnds.map { $0.since(now) }
        )
    }
}
