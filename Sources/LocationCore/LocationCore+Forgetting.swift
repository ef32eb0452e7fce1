// Forgetting apps: those with nothing left to keep (SEMANTICS F18), and an owner's at an administrator's word (F20).
extension LocationCore {
    /// Notes the apps this event touched that may have nothing left to keep; read before the diagnostics are
    /// flushed, which empties the list of apps the event touched.
    mutating func noteIdleApps() {
        for app in dirtyApps where apps[app].state == .notRunning && !isKeptByManifest(app) {
            idleApps.append(app)
        }
    }

    /// F18: forgets each noted app that still has nothing to keep, from memory and from the store.
    mutating func forgetIdleApps() {
        for app in idleApps where isForgettable(app) {
            conditions[app] = nil
            persist(.appRemoved(apps[app].key))
            if let owner = apps[app].user { release(owner) }
            apps.forget(app)
        }
        idleApps.removeAll(keepingCapacity: true)
    }

    /// Whether the app's manifest is one the administrator installed, rather than none or one locd stood in
    /// (M3, I11).
    func hasManifestOfItsOwn(_ app: Int) -> Bool { apps[app].declares.ownManifest }

    /// H2: only an installed app's entry of no user is kept for its manifest; a user's app of it is forgotten
    /// like any other when it has nothing left to keep (F18).
    func isKeptByManifest(_ app: Int) -> Bool { apps[app].user == nil && hasManifestOfItsOwn(app) }

    /// The app's owner as `ListApps` shows it: its user, and none for an installed app's entry of no user (F20).
    func owner(of app: AppRuntime) -> AppOwner? {
        app.user == nil && app.declares.ownManifest ? nil : AppOwner(app.user)
    }

    /// F20, H8: counts every app against its user again (start, restart).
    mutating func recountOwners() {
        ownedApps.removeAll(keepingCapacity: true)
        for app in apps.ordered {
            if let owner = apps[app].user { ownedApps[account(owner), default: 0] += 1 }
        }
    }

    private mutating func release(_ owner: UInt32) {
        let owner = account(owner)
        let left = ownedApps[owner, default: 1] - 1
        ownedApps[owner] = left > 0 ? left : nil
    }

    /// F18: no manifest of its own, no process, session, prompt, stream, condition or pending window, and
    /// nothing decided: an app a later `Hello` would make again exactly as it is.
    private func isForgettable(_ app: Int) -> Bool {
        // A handle noted twice in one event is forgotten once; by then it names no app.
        guard apps.handle(apps[app].key) == app, !isKeptByManifest(app) else { return false }
        let runtime = apps[app]
        return runtime.state == .notRunning && runtime.clients.isEmpty && runtime.sessionSlots.isEmpty
            && runtime.queue.isEmpty && runtime.requests.isEmpty && runtime.locationStreams.isEmpty
            && runtime.authorizationWatchers.isEmpty && runtime.endedSessions.isEmpty
            && runtime.graceEnds == nil && runtime.relaunchEnds == nil && runtime.restartEnds == nil
            && runtime.reconfirmAt == nil && runtime.alwaysUseSince == nil && runtime.alwaysUse.nanoseconds == 0
            && !runtime.buttonGrant && runtime.record == AuthorizationRecord()
            && conditions[app]?.isEmpty ?? true
    }

    /// `Admin.ForgetApps` (F20, H8): every app of the user `owner` (or, for `unknown`, every app of no user with no
    /// manifest of its own) goes as if it had never been known: its prompts are withdrawn, its sessions and streams
    /// end, its connections are no longer bound to it, and its record, conditions and Always use go, from memory
    /// and from the store, when the event ends.
    mutating func forgetApps(_ call: CallID, owner: AppOwner) {
        guard scope(of: call).administrator else { return fail(call, CallerScope.administratorsOnly("ForgetApps")) }
        var forgotten = 0
        for app in apps.ordered where !isKeptByManifest(app) && AppOwner(apps[app].user) == owner {
            strip(app)
            idleApps.append(app)
            forgotten += 1
        }
        reply(call, .forgotten(forgotten))
    }

    /// Leaves the app with nothing to keep (F18's test), so that ``forgetIdleApps()`` forgets it.
    private mutating func strip(_ app: Int) {
        // Its prompts first, so that ending its sessions shows no next head (S6); again last, for any that
        // ending them raised.
        cancelPrompts(of: app)
        let streamsOfApp = apps[app].locationStreams + apps[app].authorizationWatchers
        for stream in streamsOfApp { closeStream(stream, final: true) }
        for client in apps[app].clients {
            // The connection stays open, bound to nothing: its next io.locd.App call answers HelloRequired.
            bind(client, to: nil)
        }
        apps[app].clients.removeAll()
        apps[app].requests.removeAll()
        for slot in apps[app].sessionSlots { endSession(slot, final: true) }
        cancelPrompts(of: app)
        let appID = apps[app].appID
        let user = apps[app].user
        for entry in conditions[app]?.entries ?? [] {
            persist(.conditionRemoved(AppKey(appID, user: user), monitor: entry.monitor, identifier: entry.identifier))
        }
        conditions[app] = nil
        apps[app].state = .notRunning
        apps[app].graceEnds = nil
        apps[app].relaunchEnds = nil
        apps[app].restartEnds = nil
        apps[app].inUseAtTermination = false
        apps[app].reconfirmAt = nil
        apps[app].alwaysUseSince = nil
        apps[app].alwaysUse = Span(nanoseconds: 0)
        apps[app].buttonGrant = false
        apps[app].endedSessions.removeAll()
        apps[app].suppressed.removeAll()
        if apps[app].record != AuthorizationRecord() {
            apps[app].record = AuthorizationRecord()
            announce(.authorizationChanged, app: app, "forgotten")
        }
    }
}
