// Restart (SEMANTICS R2, R3, L7): the core rebuilt from what the store kept.
extension LocationCore {
    /// A core restored after a daemon restart at `now`.
    ///
    /// Every restored session lingers with a fresh relaunch window (R3); running apps keep their state
    /// until that window closes with no client back (L7); stored grace, relaunch and prompt deadlines
    /// keep their instants (R2). The snapshot must come from this boot: the store discards the rest.
    package init(
        configuration: CoreConfiguration,
        manifests: [Manifest],
        restoring snapshot: CoreSnapshot,
        epoch: UInt32,
        at now: Instant
    ) {
        self.init(configuration: configuration, manifests: manifests, epoch: epoch)
        self.now = now
        locationServicesEnabled = snapshot.locationServicesEnabled
        usersWithServicesOff = snapshot.usersWithServicesOff
        policies = snapshot.policies
        let window = now.adding(configuration.relaunchWindow)
        restoreApps(snapshot, window: window)
        restoreSessions(snapshot.sessions, window: window)
        restorePrompts(snapshot.prompts)
        restoreConditions(snapshot.conditions)
        // F20, H8: every user's apps and sessions count against the user again.
        recountOwners()
        recountSessions()
        restoredRecordsUnchecked = true
        for app in apps.ordered {
            // F18: a stored app with nothing left to keep is forgotten, from the store too, at the first event.
            if apps[app].state == .notRunning && !isKeptByManifest(app) { idleApps.append(app) }
            apps[app].inUse = computeInUse(app)
            apps[app].lastAuthorization = authorizationView(app)
            let context = context(of: app)
            for slot in apps[app].sessionSlots {
                sessions[slot].mask = mask(of: sessions[slot], context: context)
                sessions[slot].state = .lingering
            }
        }
    }

    /// Restores the apps' records, Always use and lifecycle; a running app waits for a client until `window`.
    private mutating func restoreApps(_ snapshot: CoreSnapshot, window: Instant) {
        for (key, record) in snapshot.records {
            let app = restoredApp(key)
            apps[app].record = record
            // P11: a one-time grant of an app that could never be prompted came from a location button.
            apps[app].buttonGrant = record.oneTime && apps[app].manifest?.whenInUseUsageDescription == nil
        }
        for (key, used) in snapshot.alwaysUse {
            let app = restoredApp(key)
            apps[app].alwaysUse = used
        }
        for stored in snapshot.apps {
            let app = restoredApp(stored.app)
            if apps[app].manifest == nil && configuration.allowUnknownApps {
                apps[app].manifest = .unknownApp(stored.appID)
            }
            apps[app].state = stored.state
            apps[app].inUseAtTermination = stored.inUseAtTermination
            if let grace = stored.graceEnds { setGrace(app, ends: grace) }
            if let relaunch = stored.relaunchEnds {
                apps[app].relaunchEnds = relaunch
                deadlines.insert(relaunch, .relaunchWindow(app))
            }
            if stored.state == .foreground || stored.state == .background {
                apps[app].restartEnds = window
                deadlines.insert(window, .restartWindow(app))
            }
        }
    }

    /// Restores the explicit sessions of known apps, each lingering until `window` (R3).
    private mutating func restoreSessions(_ snapshots: [SessionSnapshot], window: Instant) {
        for stored in snapshots.sorted(by: { $0.id < $1.id }) where stored.kind != .implicit {
            guard let app = apps.handle(stored.app) else { continue }
            let session = SessionEntry(
                id: stored.id,
                app: app,
                appID: stored.appID,
                user: stored.user,
                kind: stored.kind,
                requirement: stored.requirement,
                purposeKey: stored.purposeKey,
                owner: nil,
                ownerPID: stored.ownerPID,
                lingerEnds: window,
                restored: true
            )
            let slot = sessions.insert(session, serial: apps[app].serial)
            apps[app].sessionSlots.append(slot)
            apps[app].lingeringSessions += 1
            apps[app].count(session.kind, session.requirement, 1)
            if session.requirement >= .whenInUse { demandingSessions += 1 }
            deadlines.insert(window, .lingering(stored.id))
        }
    }

    /// Restores the prompts of apps with a manifest, in their queues' order; a head keeps its timeout (R2).
    private mutating func restorePrompts(_ snapshots: [PromptSnapshot]) {
        for stored in snapshots.sorted(by: { $0.id < $1.id }) {
            guard let app = apps.handle(stored.app), apps[app].manifest != nil else { continue }
            var prompt = PromptEntry(
                id: stored.id,
                app: app,
                appID: stored.appID,
                user: stored.user,
                key: PromptKey(kind: stored.kind, purposeKey: stored.purposeKey)
            )
            if let raisedAt = stored.raisedAt, apps[app].queue.isEmpty {
                let timeout = raisedAt.adding(configuration.promptTimeout)
                prompt.raisedAt = raisedAt
                prompt.timeoutAt = timeout
                deadlines.insert(timeout, .promptTimeout(stored.id))
            }
            prompts[stored.id] = prompt
            apps[app].queue.append(stored.id)
            // P14: no agent is connected to a daemon that starts; its agents have `agent-wait` to come back.
            awaitAgentIfNone(stored.id)
        }
    }

    /// Restores the monitored conditions in the order they were added.
    private mutating func restoreConditions(_ snapshots: [ConditionSnapshot]) {
        for stored in snapshots.sorted(by: { $0.position < $1.position }) {
            let app = restoredApp(stored.app)
            conditions[app, default: MonitorConditions()].restore(
                MonitorConditions.Entry(
                    monitor: stored.monitor,
                    identifier: stored.identifier,
                    condition: stored.condition,
                    state: stored.state,
                    date: stored.date,
                    position: stored.position
                )
            )
            nextConditionPosition = max(nextConditionPosition, stored.position + 1)
        }
    }

    /// What the store should hold now; the same values the `persist` actions wrote one by one.
    package var snapshot: CoreSnapshot {
        CoreSnapshot(
            locationServicesEnabled: locationServicesEnabled,
            records: apps.values.reduce(into: [:]) { $0[$1.key] = $1.record },
            apps: apps.values.map {
                AppSnapshot(
                    appID: $0.appID,
                    state: $0.state,
                    graceEnds: $0.graceEnds,
                    relaunchEnds: $0.relaunchEnds,
                    inUseAtTermination: $0.inUseAtTermination,
                    user: $0.user
                )
            },
            sessions: sessions.values.filter { $0.kind != .implicit }.sorted { $0.id < $1.id }.map(\.snapshot),
            prompts: prompts.values.sorted { $0.id < $1.id }.map(\.snapshot),
            conditions: conditions.flatMap { app, monitored in monitored.entries.map { snapshot(of: $0, app: app) } }
                .sorted { $0.position < $1.position },
            alwaysUse: apps.values.reduce(into: [:]) { stored, app in
                if app.alwaysUse.nanoseconds != 0 { stored[app.key] = app.alwaysUse }
            },
            policies: policies,
            usersWithServicesOff: usersWithServicesOff
        )
    }

    /// The app a stored row names, made if the restore has not made it yet: a user's app of an installed app gets
    /// its manifest (H2); any other app none, until a manifest or a broker gives it one.
    private mutating func restoredApp(_ key: AppKey) -> Int {
        if let app = apps.handle(key) { return app }
        let installed = key.user == nil ? nil : apps.handle(AppKey.noUser(key.appID)).flatMap { apps[$0].manifest }
        return addApp(key, manifest: installed?.isStandIn == false ? installed : nil)
    }
}
