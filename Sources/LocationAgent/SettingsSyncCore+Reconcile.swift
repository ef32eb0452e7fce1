import AppIdentifiers

extension SettingsSyncCore {
    /// The grant of a store entry as N10 compares it: no entry is Ask Next Time; one that is no decision (N7) is
    /// `nil`.
    func grant(inStore entry: [String]?) -> DesktopGrant? {
        guard let entry else { return .ask }
        return DesktopGrant(entry: entry)
    }

    /// Whether `app` is kept the same on both sides (N8): an app id (I15), and not locd's name for the portal.
    static func isSynced(_ app: String) -> Bool {
        app != portalApp && AppIdentifier.isValid(app)
    }

    /// Brings each of `apps` to one grant on both sides (N9, N10), the winner `forced` where it is given.
    mutating func reconcile(_ apps: Set<String>, now: Double, forced: SyncSide? = nil) -> [Action] {
        guard let locd, let store else { return [] }
        var actions: [Action] = []
        var agreedChanged = false
        for app in apps.sorted() where Self.isSynced(app) {
            let ours = locd.apps[app]?.grant ?? .ask
            let agreedGrant = agreed.apps[app] ?? .ask
            guard let theirs = grant(inStore: store[app]) else {
                // N7: an entry that is no decision changes nothing in locd; a decision made in locd replaces it.
                if ours != agreedGrant || forced == .locd { actions += writeStore(app, ours, now: now) }
                continue
            }
            if ours == theirs {
                if agreed.apps[app] != ours {
                    agreed.apps[app] = ours == .ask ? nil : ours
                    agreedChanged = true
                }
                continue
            }
            let winner =
                forced
                ?? SyncSide.winner(locd: ours, desktop: theirs, agreed: agreed.apps[app], strictness: \.strictness)
            switch winner {
            case .locd, nil:
                actions += writeStore(app, ours, now: now)
            case .desktop:
                actions += setLocd(app, theirs, allowed: locd.apps[app]?.allowed ?? false)
                actions += portal(after: theirs, now: now)
            }
        }
        if agreedChanged { actions.append(.saveAgreed(agreed)) }
        return actions
    }

    /// Writes `grant` of `app` to the store: `[LEVEL, now]`, Never keeping the entry's LAST_USED (N7).
    private func writeStore(_ app: String, _ grant: DesktopGrant, now: Double) -> [Action] {
        let stamp = String(Int64(now))
        let kept = grant == .never ? store?[app].flatMap { $0.count == 2 ? $0[1] : nil } : nil
        return [
            .writeStore(app: app, level: grant.level, lastUsed: kept ?? stamp),
            .log(.info, "\(app): \(grant.rawValue) in locd, written to the permission store"),
        ]
    }

    /// Copies the store's `grant` of `app` to locd (N7): While Using, or the app's Always kept where it has it.
    private mutating func setLocd(_ app: String, _ grant: DesktopGrant, allowed: Bool) -> [Action] {
        settingNow.insert(app)
        let action: Action =
            switch grant {
            case .ask: .setAuthorization(app: app, setting: "askNextTime", precise: nil)
            case .never: .setAuthorization(app: app, setting: "never", precise: nil)
            case .approximate, .precise:
                .setAuthorization(
                    app: app,
                    setting: allowed ? nil : "whileUsing",
                    precise: grant == .precise && capped != true
                )
            }
        if grant == .precise && capped == true {
            // N14: the person's precise grant, approximate while GNOME's accuracy is below exact.
            agreed.heldPrecise.insert(app)
        }
        return [action, .log(.info, "\(app): \(grant.rawValue) in the permission store, copied to locd")]
    }

    /// N11: a grant the person gave in the store also answers locd's question about the portal while locd would still
    /// ask it: at once where locd lists the portal's app, else when it comes within ``portalWindow`` seconds.
    private mutating func portal(after grant: DesktopGrant, now: Double) -> [Action] {
        guard grant == .approximate || grant == .precise else { return [] }
        portalGrant = (grant, now)
        return portalAnswered(now: now)
    }

    /// N11: the portal's app set to While Using where locd lists it undecided and the store's grant is recent.
    mutating func portalAnswered(now: Double) -> [Action] {
        guard let (grant, at) = portalGrant, now - at <= Self.portalWindow, let locd,
            locd.apps[Self.portalApp]?.grant == .ask, !settingNow.contains(Self.portalApp)
        else { return [] }
        portalGrant = nil
        settingNow.insert(Self.portalApp)
        return [
            .setAuthorization(app: Self.portalApp, setting: "whileUsing", precise: grant == .precise),
            .log(.info, "\(Self.portalApp): allowed While Using, as the person's grant in the permission store"),
        ]
    }

    /// Brings the person's switch to one value in locd and in GNOME (N12, N10).
    mutating func reconcileSwitch(now: Double, locdMoved: Bool) -> [Action] {
        guard let locd, let desktop = switchValue else { return [] }
        guard let on = locd.switchOn else {
            if saidAdministrator { return [] }
            saidAdministrator = true
            return [
                .log(
                    .info,
                    "GNOME's location switch is not copied to locd: this user may administer locd, whose switch "
                        + "is then the machine's (N12)"
                )
            ]
        }
        let ours = DesktopSwitch(on)
        if ours == desktop {
            guard agreed.switchOn != on else { return [] }
            agreed.switchOn = on
            return [.saveAgreed(agreed)]
        }
        let winner = SyncSide.winner(
            locd: ours,
            desktop: desktop,
            agreed: agreed.switchOn.map(DesktopSwitch.init),
            strictness: \.strictness
        )
        switch winner {
        case .desktop:
            guard let enabled = desktop.enabled else { return [] }
            return [.setServices(enabled), .log(.info, "location services \(enabled ? "on" : "off"), as in GNOME")]
        case .locd, nil:
            return [.writeSwitch(on), .log(.info, "GNOME's location switch \(on ? "on" : "off"), as in locd")]
        }
    }

    /// N9: LAST_USED of the apps using location, written when one starts and every minute while it goes on; the
    /// LEVEL stays.
    mutating func lastUse(previous: Set<String>, now: Double) -> [Action] {
        guard let locd, let store else { return [] }
        var actions: [Action] = []
        for app in locd.using.sorted() where Self.isSynced(app) {
            guard let entry = store[app], let grant = DesktopGrant(entry: entry), grant != .never else { continue }
            let due = lastUseWritten[app].map { now - $0 >= lastUsedInterval } ?? true
            guard !previous.contains(app) || due else { continue }
            lastUseWritten[app] = now
            actions.append(.writeStore(app: app, level: entry[0], lastUsed: String(Int64(now))))
        }
        for app in lastUseWritten.keys where !locd.using.contains(app) { lastUseWritten[app] = nil }
        return actions
    }
}
