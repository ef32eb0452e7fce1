// Diagnostics (SEMANTICS §7): computed from state, reported only when they change (D11).
extension LocationCore {
    /// The context of an app's diagnostics, read field by field from its runtime (passing the runtime
    /// itself out of the table would copy it).
    func context(of app: Int) -> AppContext {
        let record = effectiveRecord(app)
        return context(
            record: record,
            inUse: apps[app].inUse,
            effectiveRequirement: apps[app].effectiveRequirement,
            optedOut: apps[app].declares.optedOut,
            holdsServiceSession: apps[app].explicitDemanding > 0
                || (apps[app].explicitNone > 0 && record.status.isAuthorized),
            queue: apps[app].queue,
            user: apps[app].user
        )
    }

    func context(of app: AppRuntime) -> AppContext {
        let record = effectiveRecord(app)
        return context(
            record: record,
            inUse: app.inUse,
            effectiveRequirement: app.effectiveRequirement,
            optedOut: app.optedOutOfImplicitSessions,
            holdsServiceSession: app.explicitDemanding > 0 || (app.explicitNone > 0 && record.status.isAuthorized),
            queue: app.queue,
            user: app.user
        )
    }

    private func context(
        record: AuthorizationRecord,
        inUse: Bool,
        effectiveRequirement: Requirement?,
        optedOut: Bool,
        holdsServiceSession: Bool,
        queue: [PromptID],
        user: UInt32?
    ) -> AppContext {
        var context = AppContext(
            record: record,
            inUse: inUse,
            effectiveRequirement: effectiveRequirement,
            optedOut: optedOut,
            holdsServiceSession: holdsServiceSession,
            authorizationPending: false,
            upgradePending: false,
            accuracyPending: [],
            // H6: the user's own switch, under the machine's.
            servicesEnabled: locationServicesEnabled
                && (usersWithServicesOff.isEmpty || !(user.map(usersWithServicesOff.contains) ?? false)),
            providerHasFix: providerHasFix,
            providerStationary: stationary.isStationary,
            storeHealthy: storeHealthy
        )
        for id in queue {
            switch prompts[id]?.key {
            case .authorization: context.authorizationPending = true
            case .alwaysUpgrade: context.upgradePending = true
            // The grant stays Always while the person is asked whether to keep it: nothing is in progress.
            case .alwaysReconfirm: break
            case .accuracy(let key): context.accuracyPending.append(key)
            case nil: break
            }
        }
        return context
    }

    /// A session's mask (§7, session column).
    func mask(of session: SessionEntry, context: AppContext) -> DiagnosticMask { context.mask(of: session) }

    /// A location stream's mask (§7, update and monitor-event columns).
    func streamMask(_ kind: StreamEntry.Kind, context: AppContext) -> DiagnosticMask { context.streamMask(kind) }

    /// D12: active when authorized (or R = none) and no limiting bit; lingering without an owner.
    func state(of session: SessionEntry, mask: DiagnosticMask, context: AppContext) -> SessionState {
        context.state(of: session, mask: mask)
    }

    /// Reports every diagnostic, authorization and provider change the event caused (D11, A4, U3).
    ///
    /// Apps are re-evaluated in app-id order, so output spanning apps is deterministic.
    mutating func flushDiagnostics() {
        if everythingDirty {
            everythingDirty = false
            if !dirtySessions.isEmpty { dirtySessions.removeAll(keepingCapacity: true) }
            for app in dirtyApps { apps[app].isDirty = false }
            if !dirtyApps.isEmpty { dirtyApps.removeAll(keepingCapacity: true) }
            // Room for a message per session and stream at once, rather than regrowing a 100k buffer.
            messages.reserveCapacity(messages.count + sessions.count + streams.count + apps.count)
            for app in apps.ordered { refreshApp(app) }
        } else {
            for (slot, id) in dirtySessions where sessions.holds(id, at: slot) {
                let app = sessions[slot].app
                guard !apps[app].isDirty else { continue }
                refreshSession(slot, context: context(of: app))
            }
            if !dirtySessions.isEmpty { dirtySessions.removeAll(keepingCapacity: true) }
            if !dirtyApps.isEmpty {
                swap(&dirtyApps, &flushingApps)
                if flushingApps.count > 1 { flushingApps.sort { apps.rank[$0] < apps.rank[$1] } }
                for app in flushingApps { apps[app].isDirty = false }
                for app in flushingApps { refreshApp(app) }
                flushingApps.removeAll(keepingCapacity: true)
            }
        }
        let needed = demandingSessions > 0 || openLocationStreams > 0
        if needed != providerRunning {
            providerRunning = needed
            messages.append(.provider(running: needed))
        }
    }

    private mutating func refreshApp(_ app: Int) {
        let view = authorizationView(app)
        if view != apps[app].lastAuthorization {
            apps[app].lastAuthorization = view
            announce(
                .authorizationChanged,
                app: app,
                "\(view.status.rawValue) (\(view.settingsLabel.rawValue))"
            )
        }
        for watcher in apps[app].authorizationWatchers {
            guard let entry = streams[watcher] else {
                preconditionFailure("an app's authorization watchers are open streams: closing one unwatches it")
            }
            guard entry.lastAuthorization != view else { continue }
            streams[watcher]?.lastAuthorization = view
            emit(watcher, .authorization(view))
        }
        let context = context(of: app)
        for slot in apps[app].sessionSlots { refreshSession(slot, context: context) }
        for stream in apps[app].locationStreams { refreshLocationStream(stream, context: context) }
    }

    /// Re-evaluates one session; it runs for every session of every app when the global switch flips, so
    /// it reaches the session by slot and its streams through the session, with no lookup.
    private mutating func refreshSession(_ slot: Int, context: AppContext) {
        guard sessions.isLive(slot) else { return }
        let requirement = sessions[slot].requirement
        let kind = sessions[slot].kind
        // Only a purpose key's presence is read unless there is one: no retain of the key per session.
        let mask =
            sessions[slot].purposeKey == nil
            ? context.mask(requirement: requirement, kind: kind, purposeKey: nil)
            : context.mask(requirement: requirement, kind: kind, purposeKey: sessions[slot].purposeKey)
        let state = context.state(owned: sessions[slot].owner != nil, requirement: requirement, mask: mask)
        guard mask != sessions[slot].mask || state != sessions[slot].state else { return }
        announce(.sessionChanged, app: sessions[slot].app, session: sessions[slot].id, "\(state.rawValue) \(mask)")
        let streamCount = sessions[slot].diagnosticStreams.count
        for index in 0..<streamCount where sessions[slot].diagnosticStreams[index].lastMask != mask {
            emit(sessions[slot].diagnosticStreams[index].call, .diagnostic(mask, ended: false))
        }
        sessions[slot].report(mask, state)
    }
}
