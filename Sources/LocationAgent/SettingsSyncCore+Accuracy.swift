extension SettingsSyncCore {
    /// GNOME's `max-accuracy-level` was read, or changed: `capped` while it is below `exact` (N14).
    mutating func accuracyRead(capped: Bool, now: Double) -> [Action] {
        guard capped != self.capped else { return [] }
        self.capped = capped
        return accuracyHeld()
    }

    /// What the cap asks now: hold the precise apps while it is there, give back those held once it is gone (also
    /// those held in an earlier session).
    mutating func accuracyHeld() -> [Action] {
        switch capped {
        case true?: holdPrecise()
        case false?: agreed.heldPrecise.isEmpty ? [] : releasePrecise()
        case nil: []
        }
    }

    /// N14: while capped, the person's apps precise in locd are made approximate, each kept in the agreed file so
    /// that it is made precise again when the cap goes.
    mutating func holdPrecise() -> [Action] {
        guard capped == true, let locd else { return [] }
        var actions: [Action] = []
        for (app, record) in locd.apps.sorted(by: { $0.key < $1.key })
        where record.grant == .precise && Self.isSynced(app) && !settingNow.contains(app) {
            settingNow.insert(app)
            agreed.heldPrecise.insert(app)
            actions.append(.setAuthorization(app: app, setting: nil, precise: false))
        }
        if !actions.isEmpty {
            actions += [.saveAgreed(agreed), .log(.info, "GNOME's accuracy below exact: the apps are approximate")]
        }
        return actions
    }

    /// N14: the cap gone, the apps it made approximate are precise again, unless the person decided otherwise since.
    private mutating func releasePrecise() -> [Action] {
        guard let locd else { return [] }
        var actions: [Action] = []
        for app in agreed.heldPrecise.sorted() where locd.apps[app]?.grant == .approximate && !settingNow.contains(app)
        {
            settingNow.insert(app)
            actions.append(.setAuthorization(app: app, setting: nil, precise: true))
        }
        agreed.heldPrecise = []
        return actions + [.saveAgreed(agreed)]
    }
}
