// People: whose apps a caller reaches, the administrator's settings for every user, and each user's own switch
// (SEMANTICS §15).

/// Whose apps a caller of `io.locd.Admin` reaches (H4): an administrator's, every user's; anyone else's, its own.
struct CallerScope {
    var administrator: Bool
    var uid: UInt32?

    static let everyone = CallerScope(administrator: true, uid: nil)

    /// Whether the caller reaches the app `key`. A caller whose uid is unknown reaches no user's app.
    func covers(_ key: AppKey) -> Bool {
        administrator || (uid != nil && key.user == uid)
    }

    /// Why the caller may not name `user`'s apps: only an administrator names a user other than its own.
    func refusal(toName user: UInt32?) -> LocationError? {
        guard let user, !administrator, user != uid else { return nil }
        // The same answer whether or not the user has apps: nothing is learned of another user (H4).
        return .permissionDenied(
            reason: "only an administrator may name another user's apps: leave out the user to reach your own"
        )
    }

    /// What a caller whose uid the kernel did not give is told.
    static let noUser = LocationError.permissionDenied(
        reason: "locd could not tell which user this connection is: connect again"
    )

    /// The interface the administrators' methods belong to, as the refusal's sentence names it for people; the
    /// wire's names themselves are LocationProtocol's.
    private static let adminInterface = "io.locd.Admin"

    static func administratorsOnly(_ method: String) -> LocationError {
        .permissionDenied(
            reason: "\(adminInterface).\(method) is for administrators: run it as root, as locd's user or as a "
                + "member of locd's admin group"
        )
    }
}

extension LocationCore {
    /// The scope of the caller of `call`.
    func scope(of call: CallID) -> CallerScope {
        guard let client = clients[call.client] else { return CallerScope(administrator: false, uid: nil) }
        return CallerScope(administrator: client.administrator, uid: client.uid)
    }

    /// The apps of id `appID` the scope reaches: `user`'s only if given, otherwise all of them, the entry of no
    /// user first.
    func apps(named appID: String, user: UInt32?, scope: CallerScope) -> [Int] {
        if let user {
            guard let app = apps.handle(AppKey(appID, user: user)), scope.covers(apps[app].key) else { return [] }
            return [app]
        }
        guard let first = apps.firstHandle(of: appID) else { return [] }
        var found: [Int] = []
        var position = apps.rank[first]
        while position < apps.ordered.count, apps[apps.ordered[position]].appID == appID {
            let app = apps.ordered[position]
            if scope.covers(apps[app].key) { found.append(app) }
            position += 1
        }
        return found
    }

    /// H2: `key`'s app of an installed app that user has none of yet, at its defaults as it would be made (the
    /// administrator's setting for every user applied, H5), without making it: a call that only reads makes nothing.
    /// `nil` when the user has an app of the id, or the id has no installed manifest (another user's app of an id
    /// with no manifest is, to this user, no app: H4).
    func unmadeApp(_ key: AppKey) -> AppRuntime? {
        guard key.user != nil, apps.handle(key) == nil, let installed = apps.handle(AppKey.noUser(key.appID)),
            let manifest = apps[installed].manifest, !manifest.isStandIn
        else { return nil }
        var app = AppRuntime(appID: key.appID, user: key.user, manifest: manifest)
        if let policy = policies[key.appID] { app.record = policy.applied(to: app.record) }
        return app
    }

    /// H2: every installed app `user` has no app of yet, each at its defaults.
    func unmadeApps(of user: UInt32) -> [AppRuntime] {
        apps.values.compactMap { $0.user == nil ? unmadeApp(AppKey($0.appID, user: user)) : nil }
    }

    /// The app a setting is for: an existing one, or a user's app of an installed manifest, made for the setting
    /// so that a person can decide before the app first asks (H1).
    mutating func appForSetting(_ key: AppKey) -> Int? {
        if let app = apps.handle(key) {
            return apps[app].manifest != nil || apps[app].record != AuthorizationRecord() ? app : nil
        }
        guard let user = key.user, let installed = apps.handle(AppKey.noUser(key.appID)),
            let manifest = apps[installed].manifest,
            !manifest.isStandIn, ownedApps[account(user), default: 0] < configuration.maxAppsPerUID
        else { return nil }
        let app = addApp(key, manifest: manifest)
        ownedApps[account(user), default: 0] += 1
        idleApps.append(app)
        return app
    }

    /// H5: an administrator's setting for every user: every user's app of the id takes it now, each later one starts
    /// with it, and no user may choose a looser one.
    mutating func setPolicy(_ call: CallID, appID: String, setting: AuthorizationSetting?, precise: Bool?) {
        let all = apps(named: appID, user: nil, scope: .everyone)
        guard all.contains(where: { apps[$0].manifest != nil || apps[$0].record != AuthorizationRecord() }) else {
            return fail(call, .noSuchApp(appID: appID))
        }
        guard !configuration.restrictedApps.contains(appID) else {
            return reply(call, .authorization(authorizationView(all[0])))
        }
        var policy = policies[appID] ?? AppPolicy(setting: nil, precise: nil)
        if let setting { policy = AppPolicy(setting: setting, precise: policy.precise) }
        if let precise { policy.precise = precise }
        // The policy first: each record change below is held to it (``withinPolicy(_:_:)``), not to the old one.
        let stored: AppPolicy? = policy.isEmpty ? nil : policy
        if policies[appID] != stored {
            policies[appID] = stored
            persist(.policy(appID: appID, stored))
        }
        for app in all { set(app, setting, precise: precise) }
        reply(call, .authorization(authorizationView(all[0])))
    }

    /// A user's app's record as the administrator's setting for every user lets it be (H5); an app of no user
    /// is the administrator's own entry, which no policy narrows.
    func withinPolicy(_ app: Int, _ record: AuthorizationRecord) -> AuthorizationRecord {
        guard apps[app].user != nil, !policies.isEmpty, let policy = policies[apps[app].appID] else { return record }
        return policy.clamped(record)
    }

    /// Whether the app may get precise locations by any prompt (H5).
    func policyAllowsPrecise(_ app: Int) -> Bool {
        guard apps[app].user != nil, !policies.isEmpty, let policy = policies[apps[app].appID] else { return true }
        return policy.allowsPrecise
    }

    static func policyRefusal(_ appID: String, _ policy: AppPolicy) -> String {
        var limits: [String] = []
        if let setting = policy.setting { limits.append("at most \(setting.rawValue)") }
        if policy.precise == false { limits.append("approximate locations only") }
        return "an administrator set \(appID) for every user (\(limits.joined(separator: ", "))): choose a stricter "
            + "setting, or ask an administrator"
    }

    /// Whether location services are on for the app: the machine's switch, and its user's own (H6).
    func servicesEnabled(for app: Int) -> Bool {
        guard locationServicesEnabled else { return false }
        guard !usersWithServicesOff.isEmpty, let user = apps[app].user else { return true }
        return !usersWithServicesOff.contains(user)
    }

    /// H6: a user turns location services off or on for themselves: their apps only, as A4 does for the machine.
    mutating func setLocationServices(for uid: UInt32, enabled: Bool) {
        guard enabled == usersWithServicesOff.contains(uid) else { return }
        if enabled { usersWithServicesOff.remove(uid) } else { usersWithServicesOff.insert(uid) }
        persist(.userLocationServices(uid: uid, enabled: enabled))
        announceServices(of: uid, enabled: enabled)
        for app in apps.ordered where apps[app].user == uid {
            markDirty(app)
            if enabled { evaluatePrompts(app) } else { cancelPrompts(of: app) }
        }
    }

    /// H6: a user's own switch changed: `servicesChanged` of that user, to their own watchers and administrators'
    /// alone (no other user learns it, H4).
    private mutating func announceServices(of uid: UInt32, enabled: Bool) {
        guard !watchers.isEmpty else { return }
        let event = AdminEvent(
            kind: .servicesChanged,
            appID: nil,
            sessionID: nil,
            detail: enabled ? "on" : "off",
            at: now,
            user: uid
        )
        for watcher in watchers {
            let scope = scope(of: watcher)
            guard scope.administrator || scope.uid == uid else { continue }
            emit(watcher, .event(event))
        }
    }

    /// H7: whether the agent stream `agent` is offered the prompts of the app `key`: its user's own agents, and an
    /// administrator's agent that asked for every user's, or for this user's among those it named. An agent is
    /// counted for a prompt (P14) exactly when it is offered it.
    func offers(_ agent: CallID, _ key: AppKey) -> Bool {
        if let reach = everyoneAgents[agent] {
            guard let users = reach else { return true }
            return key.user.map(users.contains) ?? false
        }
        return clients[agent.client]?.uid == key.user
    }

    /// H8: why the caller may open no more `Prompts` or `Watch` streams: one user who may not administer holds at
    /// most max-agents-per-uid of them.
    func streamLimitRefusal(_ scope: CallerScope) -> LocationError? {
        guard !scope.administrator, let uid = scope.uid.map(account) else { return nil }
        var open = 0
        for stream in agents where clients[stream.client]?.uid.map(account) == uid { open += 1 }
        for stream in watchers where clients[stream.client]?.uid.map(account) == uid { open += 1 }
        guard open >= configuration.maxAgentsPerUID else { return nil }
        return .limitExceeded(limit: "max-agents-per-uid", maximum: configuration.maxAgentsPerUID)
    }

    /// H9: the uid a per-uid bound counts `uid` against: the user a subordinate range delegates it to, else itself
    /// (a uid in a range with an account of its own, too).
    package func account(_ uid: UInt32) -> UInt32 { configuration.subordinateIDs.owner(of: uid) }

    /// H9: the shell found that `uid`, a uid in a subordinate range, has an account of its own: it counts as itself
    /// until the next reload, and what it holds is counted against it instead of the range's user.
    package mutating func accountFound(_ uid: UInt32) {
        guard configuration.subordinateIDs.addAccount(uid) else { return }
        recountOwners()
        recountSessions()
    }

    mutating func releaseSession(of user: UInt32) {
        let user = account(user)
        let left = sessionsByUser[user, default: 1] - 1
        sessionsByUser[user] = left > 0 ? left : nil
    }

    /// H8: counts every live session against its user again, after a restart restored them.
    mutating func recountSessions() {
        sessionsByUser.removeAll(keepingCapacity: true)
        for session in sessions.slots where session.isLive {
            if let user = session.user { sessionsByUser[account(user), default: 0] += 1 }
        }
    }
}
