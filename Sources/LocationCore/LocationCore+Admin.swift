// io.locd.Admin: the Settings screen, the global switch, location buttons and observation (§3, §6.4).
extension LocationCore {
    /// `Admin.Status`: the machine's figures for an administrator; for any other caller, its own apps and switch,
    /// with the machine's counts only in aggregate (H4).
    func status(scope: CallerScope = .everyone) -> CoreStatus {
        var lingering = 0
        for session in sessions.slots where session.isLive && session.owner == nil { lingering += 1 }
        var using: [String] = []
        var background: [String] = []
        for app in apps.values where scope.covers(app.key) {
            guard usesLocation(app) else { continue }
            using.append(app.appID)
            if showsBackgroundIndicator(app) { background.append(app.appID) }
        }
        return CoreStatus(
            locationServicesEnabled: locationServicesEnabled,
            apps: apps.values.filter { $0.manifest != nil && $0.user == nil }.count,
            clients: clients.values.filter { $0.app != nil }.count,
            sessions: sessions.count,
            lingeringSessions: lingering,
            pendingPrompts: prompts.count,
            agents: agents.count,
            appsUsingLocation: using,
            appsUsingLocationInBackground: background,
            locationServicesEnabledForUser: scope.administrator
                ? nil : scope.uid.map { !usersWithServicesOff.contains($0) },
            desktops: desktopViews(scope)
        )
    }

    /// Whether the app receives location now: an active session of requirement ≥ whenInUse, or a
    /// location stream whose mask lets locations through (the status-bar list of seed 002).
    func usesLocation(_ app: AppRuntime) -> Bool {
        let context = context(of: app)
        for slot in app.sessionSlots where sessions.isLive(slot) {
            let session = sessions[slot]
            guard session.requirement >= .whenInUse, session.owner != nil else { continue }
            if state(of: session, mask: mask(of: session, context: context), context: context) == .active {
                return true
            }
        }
        for stream in app.locationStreams {
            guard let entry = streams[stream], case .liveUpdates = entry.kind else { continue }
            let mask = streamMask(entry.kind, context: context)
            if context.record.status.isAuthorized && mask.isDisjoint(with: .withholdingLocation) { return true }
        }
        return false
    }

    /// Whether an app that uses location shows the background indicator (S12): it is in the background or
    /// terminated under a While-Using grant — Allow Once and a provisional Always included. An app authorized
    /// Always does not (seed 004: "青いバーが出るのは WhenInUse を許可されたアプリがバックグラウンドで位置情報を
    /// 使用しているときだけで、Always の場合は青くならない").
    func showsBackgroundIndicator(_ app: AppRuntime) -> Bool {
        guard app.state == .background || app.state == .terminated else { return false }
        let record = effectiveRecord(app)
        return record.status == .authorizedWhenInUse || (record.status == .authorizedAlways && record.provisional)
    }

    /// Every app the table holds: an app with no manifest at all (a stored app whose broker has not spoken for it
    /// since a restart, or whose manifest a reload removed) is listed too, with what it keeps and who made it, so
    /// that an administrator sees what a user accumulated (F20).
    func appViews(_ scope: CallerScope = .everyone) -> [AppView] {
        apps.values.compactMap { app in scope.covers(app.key) ? appView(app) : nil }
    }

    func appView(_ app: AppRuntime) -> AppView {
        AppView(
            appID: app.appID,
            manifest: app.manifest?.source ?? Manifest.noneSource,
            state: app.state,
            inUse: app.inUse,
            usingLocationInBackground: usesLocation(app) && showsBackgroundIndicator(app),
            authorization: AuthorizationView(effectiveRecord(app)),
            clients: app.clients.count,
            sessions: app.sessionSlots.count,
            owner: owner(of: app),
            user: app.user,
            policy: policies[app.appID],
            stateSource: stateSource(app)
        )
    }

    /// H4: every app the caller reaches, or one user's alone (an installed entry of no user counts as its owner's):
    /// the named user's, or an ordinary caller's own, with each installed app the user has none of yet at its
    /// defaults (H2).
    mutating func listApps(_ call: CallID, user: UInt32?) {
        let scope = scope(of: call)
        if let refusal = scope.refusal(toName: user) { return fail(call, refusal) }
        let views = appViews(scope)
        guard let user = user ?? (scope.administrator ? nil : scope.uid) else { return reply(call, .apps(views)) }
        var listed = views.filter { $0.user == user || ($0.user == nil && $0.owner == .uid(user)) }
        let shown = Set(listed.map(\.appID))
        listed += unmadeApps(of: user).filter { !shown.contains($0.appID) }.map(appView)
        reply(call, .apps(listed))
    }

    mutating func adminListSessions(_ call: CallID, appID: String?, user: UInt32?) {
        let scope = scope(of: call)
        if let refusal = scope.refusal(toName: user) { return fail(call, refusal) }
        guard let appID else {
            let all = apps.ordered.filter { scope.covers(apps[$0].key) && (user == nil || apps[$0].user == user) }
            return reply(call, .sessions(all.flatMap { sessionViews(of: $0) }))
        }
        let matching = apps(named: appID, user: user, scope: scope)
        guard !matching.isEmpty else {
            // H2: an installed app the user has not run yet is known, and has no sessions.
            let named = user ?? (scope.administrator ? nil : scope.uid)
            if let named, unmadeApp(AppKey(appID, user: named)) != nil { return reply(call, .sessions([])) }
            return fail(call, .noSuchApp(appID: appID))
        }
        reply(call, .sessions(matching.flatMap { sessionViews(of: $0) }))
    }

    /// A3: set the record as a Settings screen would; A1: a restricted app's record does not move. An
    /// administrator naming no user sets it for every user (H5); any other caller sets its own app's, within that.
    mutating func setAuthorization(
        _ call: CallID,
        appID: String,
        setting: AuthorizationSetting?,
        precise: Bool?,
        user: UInt32?
    ) {
        let scope = scope(of: call)
        if let refusal = scope.refusal(toName: user) { return fail(call, refusal) }
        if scope.administrator && user == nil {
            return setPolicy(call, appID: appID, setting: setting, precise: precise)
        }
        // A caller the kernel named no user for reaches no app, not the installed entry of no user (H4).
        guard scope.administrator || scope.uid != nil else { return fail(call, CallerScope.noUser) }
        let key = AppKey(appID, user: scope.administrator ? user : scope.uid)
        guard let app = appForSetting(key) else { return fail(call, .noSuchApp(appID: appID)) }
        guard !configuration.restrictedApps.contains(appID) else {
            return reply(call, .authorization(authorizationView(app)))
        }
        if setting == .whileUsing && apps[app].declares.backgroundOnly {
            return fail(call, Self.windowlessRefusal(appID))
        }
        if key.user != nil, let policy = policies[appID] {
            if let setting, !policy.allows(setting) {
                return fail(call, .permissionDenied(reason: Self.policyRefusal(appID, policy)))
            }
            if precise == true && !policy.allowsPrecise {
                return fail(call, .permissionDenied(reason: Self.policyRefusal(appID, policy)))
            }
        }
        set(app, setting, precise: precise)
        reply(call, .authorization(authorizationView(app)))
    }

    /// A3: the record as a Settings screen leaves it: the setting, the accuracy, and no one-time or temporary grant.
    mutating func set(_ app: Int, _ setting: AuthorizationSetting?, precise: Bool?) {
        var record = apps[app].record
        if let setting { record.apply(setting) }
        if let precise { record.accuracy = precise ? .fullAccuracy : .reducedAccuracy }
        record.oneTime = false
        record.temporaryFullAccuracy = false
        changeRecord(app, to: record, by: .admin)
    }

    /// A4: the global switch; off withdraws every prompt, on is a prompt evaluation moment for every app.
    mutating func setLocationServices(_ call: CallID, enabled: Bool) {
        let scope = scope(of: call)
        if !scope.administrator {
            guard let uid = scope.uid else { return fail(call, CallerScope.noUser) }
            setLocationServices(for: uid, enabled: enabled)
            return reply(call, .empty)
        }
        if enabled != locationServicesEnabled {
            locationServicesEnabled = enabled
            persist(.locationServices(enabled))
            announce(.servicesChanged, app: nil, enabled ? "on" : "off")
            everythingDirty = true
            for app in apps.ordered {
                if enabled { evaluatePrompts(app) } else { cancelPrompts(of: app) }
            }
        }
        reply(call, .empty)
    }

    /// P11: a trusted location button gives a foreground, unauthorized app a one-time grant, no prompt.
    mutating func locationButton(_ call: CallID, appID: String, user: UInt32?) {
        let scope = scope(of: call)
        guard scope.administrator else { return fail(call, CallerScope.administratorsOnly("LocationButton")) }
        // Without a user: the app of no user, or the one user's app of the id in the foreground (H4).
        let named = apps(named: appID, user: user, scope: scope)
        let foreground = named.filter { apps[$0].state == .foreground }
        let chosen = user == nil && foreground.count == 1 ? foreground.first : named.first
        guard let app = chosen else {
            // H2: the user's app of an installed app it never ran is at its defaults, and not in the foreground.
            guard let user, let unmade = unmadeApp(AppKey(appID, user: user)) else {
                return fail(call, .noSuchApp(appID: appID))
            }
            return reply(call, .authorization(AuthorizationView(effectiveRecord(unmade))))
        }
        guard apps[app].manifest != nil || apps[app].record != AuthorizationRecord() else {
            return fail(call, .noSuchApp(appID: appID))
        }
        let record = effectiveRecord(app)
        guard apps[app].state == .foreground, apps[app].manifest != nil, record.status != .restricted,
            !record.status.isAuthorized
        else {
            return reply(call, .authorization(authorizationView(app)))
        }
        var granted = apps[app].record
        granted.status = .authorizedWhenInUse
        granted.oneTime = true
        granted.provisional = false
        changeRecord(app, to: granted, by: .locationButton)
        apps[app].buttonGrant = true
        // S2: the button needs no usage description, so the sessions it let in may now be served.
        markDirty(app)
        reply(call, .authorization(authorizationView(app)))
    }

    /// M2: new manifests and settings; sessions stay, overlays that moved count as record changes.
    mutating func reload(manifests: [Manifest], configuration new: CoreConfiguration) {
        let oldRestricted = configuration.restrictedApps
        let oldAdministeredApps = configuration.administeredApps
        let oldSubordinates = configuration.subordinateIDs
        configuration = new
        // H9: the bounds' counts follow the new delegation of subordinate uids.
        if new.subordinateIDs != oldSubordinates {
            recountOwners()
            recountSessions()
        }
        var byID: [String: Manifest] = [:]
        for manifest in manifests { byID[manifest.appID] = manifest }
        let verified = apps.ordered.reduce(into: [Int: Bool]()) { $0[$1] = AdministeredApp.verifies(apps[$1].manifest) }
        // G32: an app whose identity became verified, or stopped being, gains or loses its administrator's grant.
        var reverified: Set<String> = []
        for app in apps.ordered {
            let appID = apps[app].appID
            defer {
                if new.administeredApps[appID] != nil && verified[app] != AdministeredApp.verifies(apps[app].manifest) {
                    reverified.insert(appID)
                }
            }
            if let manifest = byID[appID] {
                apps[app].manifest = manifest
            } else if apps[app].manifest?.source == Manifest.brokeredSource {
                // I11: the stand-in a broker's Hello gave stays while unknown-brokered-apps still says ask.
                if new.unknownBrokeredApps != .ask { apps[app].manifest = nil }
            } else if apps[app].manifest?.source != Manifest.unknownApp(appID).source || !new.allowUnknownApps {
                apps[app].manifest = nil
            }
            // F18: an app left with no manifest of its own may have nothing else to keep.
            if apps[app].state == .notRunning && !isKeptByManifest(app) { idleApps.append(app) }
        }
        for (appID, manifest) in byID where apps.handle(AppKey.noUser(appID)) == nil {
            addApp(AppKey.noUser(appID), manifest: manifest)
        }
        // G32: an administered app whose grant or users changed is, like a restriction, a new answer to its prompts.
        let oldAdministered = Set(oldAdministeredApps.keys).union(new.administeredApps.keys).filter {
            oldAdministeredApps[$0] != new.administeredApps[$0]
        }
        for appID in oldRestricted.symmetricDifference(new.restrictedApps).union(oldAdministered).union(reverified) {
            for app in apps(named: appID, user: nil, scope: .everyone) {
                apps[app].suppressed.removeAll()
                pruneprompts(app)
                evaluatePrompts(app)
            }
        }
        carryOverWindowless()  // L14
        everythingDirty = true
    }
}
