/// What every session and stream of one app shares when its diagnostics are computed.
struct AppContext {
    var appID: String
    var record: AuthorizationRecord
    var inUse: Bool
    var effectiveRequirement: Requirement?
    var optedOut: Bool
    /// S11: an explicit session ≥ whenInUse, or a `none` one while authorized.
    var holdsServiceSession: Bool
    var authorizationPending: Bool
    var upgradePending: Bool
    var accuracyPending: [String]
}

// Diagnostics (SEMANTICS §7): computed from state, reported only when they change (D11).
extension LocationCore {
    func context(of app: AppRuntime) -> AppContext {
        let record = effectiveRecord(app)
        var context = AppContext(
            appID: app.appID,
            record: record,
            inUse: app.inUse,
            effectiveRequirement: app.effectiveRequirement,
            optedOut: app.optedOutOfImplicitSessions,
            holdsServiceSession: app.explicitDemanding > 0 || (app.explicitNone > 0 && record.status.isAuthorized),
            authorizationPending: false,
            upgradePending: false,
            accuracyPending: []
        )
        for id in app.queue {
            switch prompts[id]?.key {
            case .authorization: context.authorizationPending = true
            case .alwaysUpgrade: context.upgradePending = true
            case .accuracy(let key): context.accuracyPending.append(key)
            case nil: break
            }
        }
        return context
    }

    /// D1, D2, D3 (authorization part) and D4, shared by sessions and streams of requirement `requirement`.
    private func commonMask(_ requirement: Requirement, context: AppContext, monitor: Bool) -> DiagnosticMask {
        var mask = DiagnosticMask()
        let status = context.record.status
        if !locationServicesEnabled { mask.formUnion([.authorizationDenied, .authorizationDeniedGlobally]) }
        if status == .denied { mask.insert(.authorizationDenied) }
        if status == .restricted { mask.insert(.authorizationRestricted) }
        let alwaysExempt =
            monitor ? status == .authorizedAlways : (requirement == .always && status == .authorizedAlways)
        if requirement >= .whenInUse && locationServicesEnabled && status != .denied && status != .restricted
            && !context.inUse && !alwaysExempt
        {
            mask.insert(.insufficientlyInUse)
        }
        if context.authorizationPending
            || (context.upgradePending && requirement == .always && !context.record.provisional)
        {
            mask.insert(.authorizationRequestInProgress)
        }
        return mask
    }

    /// A session's mask (§7, session column).
    func mask(of session: SessionEntry, context: AppContext) -> DiagnosticMask {
        var mask = commonMask(session.requirement, context: context, monitor: false)
        let record = context.record
        if let key = session.purposeKey {
            let pending = context.accuracyPending.contains(key)
            if pending { mask.insert(.authorizationRequestInProgress) }
            // D6: however the grant came to be missing.
            if record.status.isAuthorized && record.accuracyLimited && !pending { mask.insert(.fullAccuracyDenied) }
        }
        // D5
        if session.requirement == .always && record.status == .authorizedWhenInUse
            && (record.alwaysDecision == .declined || record.oneTime)
        {
            mask.insert(.alwaysAuthorizationDenied)
        }
        // D7: a background activity session is not a service session; an opted-out app needs one too.
        if session.kind == .backgroundActivity && context.optedOut && !context.holdsServiceSession {
            mask.insert(.serviceSessionRequired)
        }
        return mask
    }

    /// A location stream's mask (§7, update and monitor-event columns); R = max(whenInUse, effective).
    func streamMask(_ kind: StreamEntry.Kind, context: AppContext) -> DiagnosticMask {
        let monitor: Bool
        switch kind {
        case .liveUpdates: monitor = false
        case .monitorEvents: monitor = true
        default: return []
        }
        let requirement = max(.whenInUse, context.effectiveRequirement ?? .whenInUse)
        var mask = commonMask(requirement, context: context, monitor: monitor)
        let record = context.record
        if !context.accuracyPending.isEmpty { mask.insert(.authorizationRequestInProgress) }
        if record.accuracyLimited { mask.insert(.accuracyLimited) }
        if context.optedOut && !context.holdsServiceSession { mask.insert(.serviceSessionRequired) }
        if !monitor {
            let mayUse = context.inUse || (requirement == .always && record.status == .authorizedAlways)
            if record.status.isAuthorized && mayUse && !providerHasFix { mask.insert(.locationUnavailable) }
            if providerStationary { mask.insert(.stationary) }
        }
        return mask
    }

    /// D12: active when authorized (or R = none) and no limiting bit; lingering without an owner.
    func state(of session: SessionEntry, mask: DiagnosticMask, context: AppContext) -> SessionState {
        if session.owner == nil { return .lingering }
        let authorized = context.record.status.isAuthorized || session.requirement == .noAuthorization
        return authorized && mask.isDisjoint(with: .limitingSession) ? .active : .limited
    }

    /// Reports every diagnostic, authorization and provider change the event caused (D11, A4, U3).
    mutating func flushDiagnostics() {
        if everythingDirty {
            dirtyApps = Set(apps.keys)
            everythingDirty = false
        }
        for id in dirtySessions {
            guard let appID = sessions[id]?.appID, !dirtyApps.contains(appID), let app = apps[appID] else { continue }
            refreshSession(id, context: context(of: app))
        }
        dirtySessions.removeAll(keepingCapacity: true)
        if !dirtyApps.isEmpty {
            let dirty = dirtyApps
            dirtyApps.removeAll(keepingCapacity: true)
            for appID in dirty.sorted() { refreshApp(appID) }
        }
        let needed = demandingSessions > 0 || openLocationStreams > 0
        if needed != providerRunning {
            providerRunning = needed
            messages.append(.provider(running: needed))
        }
    }

    private mutating func refreshApp(_ appID: String) {
        guard let app = apps[appID] else { return }
        let view = AuthorizationView(effectiveRecord(app))
        if view != app.lastAuthorization {
            apps[appID]!.lastAuthorization = view
            announce(.authorizationChanged, app: appID, "\(view.status.rawValue) (\(view.settingsLabel.rawValue))")
        }
        for watcher in app.authorizationWatchers where streams[watcher]?.lastAuthorization != view {
            streams[watcher]!.lastAuthorization = view
            emit(watcher, .authorization(view))
        }
        let context = context(of: app)
        for id in app.sessions { refreshSession(id, context: context) }
        for stream in app.locationStreams {
            guard let entry = streams[stream] else { continue }
            let mask = streamMask(entry.kind, context: context)
            guard mask != entry.lastMask else { continue }
            streams[stream]!.lastMask = mask
            if case .liveUpdates = entry.kind { emit(stream, .update(mask)) } else { emit(stream, .monitor(mask)) }
        }
    }

    /// Re-evaluates one session; each session and stream is looked up once, as this runs for every session of an app.
    private mutating func refreshSession(_ id: SessionID, context: AppContext) {
        guard let index = sessions.index(forKey: id) else { return }
        let session = sessions.values[index]
        let mask = self.mask(of: session, context: context)
        let state = self.state(of: session, mask: mask, context: context)
        guard mask != session.mask || state != session.state else { return }
        sessions.values[index].mask = mask
        sessions.values[index].state = state
        announce(.sessionChanged, app: context.appID, session: id, "\(state.rawValue) \(mask)")
        for stream in session.diagnosticStreams {
            guard let entry = streams.index(forKey: stream), streams.values[entry].lastMask != mask else { continue }
            streams.values[entry].lastMask = mask
            emit(stream, .diagnostic(mask, ended: false))
        }
    }
}
