// Forgetting apps that have nothing left to keep (SEMANTICS F18).
extension LocationCore {
    /// Notes the apps this event touched that may have nothing left to keep; read before the diagnostics are
    /// flushed, which empties the list of apps the event touched.
    mutating func noteIdleApps() {
        for app in dirtyApps where apps[app].state == .notRunning && !hasManifestOfItsOwn(app) {
            idleApps.append(app)
        }
    }

    /// F18: forgets each noted app that still has nothing to keep, from memory and from the store.
    mutating func forgetIdleApps() {
        for app in idleApps where isForgettable(app) {
            let appID = apps[app].appID
            conditions[app] = nil
            persist(.appRemoved(appID: appID))
            apps.forget(app)
        }
        idleApps.removeAll(keepingCapacity: true)
    }

    /// Whether the app's manifest is one the administrator installed, rather than none or one locd stood in
    /// (M3, I11).
    func hasManifestOfItsOwn(_ app: Int) -> Bool { apps[app].declares.ownManifest }

    /// F18: no manifest of its own, no process, session, prompt, stream, condition or pending window, and
    /// nothing decided: an app a later `Hello` would make again exactly as it is.
    private func isForgettable(_ app: Int) -> Bool {
        // A handle noted twice in one event is forgotten once; by then it names no app.
        guard apps.handle(apps[app].appID) == app, !hasManifestOfItsOwn(app) else { return false }
        let runtime = apps[app]
        return runtime.state == .notRunning && runtime.clients.isEmpty && runtime.sessionSlots.isEmpty
            && runtime.queue.isEmpty && runtime.requests.isEmpty && runtime.locationStreams.isEmpty
            && runtime.authorizationWatchers.isEmpty && runtime.endedSessions.isEmpty
            && runtime.graceEnds == nil && runtime.relaunchEnds == nil && runtime.restartEnds == nil
            && runtime.reconfirmAt == nil && runtime.alwaysUseSince == nil && runtime.alwaysUse.nanoseconds == 0
            && !runtime.buttonGrant && runtime.record == AuthorizationRecord()
            && conditions[app]?.isEmpty ?? true
    }
}
