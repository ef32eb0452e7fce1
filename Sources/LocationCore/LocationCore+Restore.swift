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
        for (appID, record) in snapshot.records {
            if apps[appID] == nil { apps[appID] = AppRuntime(appID: appID, manifest: nil) }
            apps[appID]!.record = record
        }
        let window = now.adding(configuration.relaunchWindow)
        for stored in snapshot.apps {
            if apps[stored.appID] == nil {
                apps[stored.appID] = AppRuntime(appID: stored.appID, manifest: nil)
            }
            if apps[stored.appID]!.manifest == nil && configuration.allowUnknownApps {
                apps[stored.appID]!.manifest = .unknownApp(stored.appID)
            }
            apps[stored.appID]!.state = stored.state
            apps[stored.appID]!.inUseAtTermination = stored.inUseAtTermination
            if let grace = stored.graceEnds { setGrace(stored.appID, ends: grace) }
            if let relaunch = stored.relaunchEnds {
                apps[stored.appID]!.relaunchEnds = relaunch
                deadlines.insert(relaunch, .relaunchWindow(stored.appID))
            }
            if stored.state == .foreground || stored.state == .background {
                apps[stored.appID]!.restartEnds = window
                deadlines.insert(window, .restartWindow(stored.appID))
            }
        }
        for stored in snapshot.sessions.sorted(by: { $0.id < $1.id }) where stored.kind != .implicit {
            guard apps[stored.appID] != nil else { continue }
            let session = SessionEntry(
                id: stored.id,
                appID: stored.appID,
                kind: stored.kind,
                requirement: stored.requirement,
                purposeKey: stored.purposeKey,
                owner: nil,
                ownerPID: stored.ownerPID,
                lingerEnds: window,
                restored: true
            )
            sessions[stored.id] = session
            apps[stored.appID]!.sessions.append(stored.id)
            apps[stored.appID]!.lingeringSessions += 1
            apps[stored.appID]!.count(session, 1)
            if session.requirement >= .whenInUse { demandingSessions += 1 }
            deadlines.insert(window, .lingering(stored.id))
        }
        for stored in snapshot.prompts.sorted(by: { $0.id < $1.id }) {
            guard apps[stored.appID]?.manifest != nil else { continue }
            var prompt = PromptEntry(
                id: stored.id,
                appID: stored.appID,
                key: PromptKey(kind: stored.kind, purposeKey: stored.purposeKey)
            )
            if let raisedAt = stored.raisedAt, apps[stored.appID]!.queue.isEmpty {
                prompt.raisedAt = raisedAt
                prompt.timeoutAt = raisedAt.adding(configuration.promptTimeout)
                deadlines.insert(prompt.timeoutAt!, .promptTimeout(stored.id))
            }
            prompts[stored.id] = prompt
            apps[stored.appID]!.queue.append(stored.id)
        }
        for appID in apps.keys {
            apps[appID]!.inUse = computeInUse(apps[appID]!)
            apps[appID]!.lastAuthorization = authorizationView(appID)
            let context = context(of: apps[appID]!)
            for id in apps[appID]!.sessions {
                sessions[id]!.mask = mask(of: sessions[id]!, context: context)
                sessions[id]!.state = .lingering
            }
        }
    }

    /// What the store should hold now; the same values the `persist` actions wrote one by one.
    package var snapshot: CoreSnapshot {
        CoreSnapshot(
            locationServicesEnabled: locationServicesEnabled,
            records: apps.values.reduce(into: [:]) { $0[$1.appID] = $1.record },
            apps: apps.values.sorted { $0.appID < $1.appID }.map {
                AppSnapshot(
                    appID: $0.appID,
                    state: $0.state,
                    graceEnds: $0.graceEnds,
                    relaunchEnds: $0.relaunchEnds,
                    inUseAtTermination: $0.inUseAtTermination
                )
            },
            sessions: sessions.values.filter { $0.kind != .implicit }.sorted { $0.id < $1.id }.map(\.snapshot),
            prompts: prompts.values.sorted { $0.id < $1.id }.map(\.snapshot)
        )
    }

    /// The instant the core last saw; a restored core starts with its restore instant.
    package var currentInstant: Instant { now }
}
