// Always is re-confirmed (SEMANTICS P12, P13): background use under a confirmed Always grant is counted, and
// once it reaches `always-reconfirm` the person is asked whether to keep Always (seed 004: "Always の場合は一度
// ユーザが許可をしても、数日毎に再び確認ダイアログが表示される"). Apple publishes no number; the default is ours.
//
// The count runs while the app is in the background, authorized Always (not provisionally), location services
// are on, and it uses location (``usesLocation(_:)``: an active session of at least whenInUse it owns, or a
// live-updates stream that receives locations). It is checked for the apps an event marked dirty, so it
// starts and stops with the events that change what it reads; a deadline wakes the core when it will reach
// the period. The count is stored when it stops, when the prompt is raised and when it restarts, so a
// restart loses at most the stretch of use that was running.
extension LocationCore {
    /// Whether the app's use now counts towards the re-confirmation (P12).
    func countsAlwaysUse(_ app: Int) -> Bool {
        guard configuration.alwaysReconfirm > Span(nanoseconds: 0), servicesEnabled(for: app),
            apps[app].state == .background
        else { return false }
        let record = effectiveRecord(app)
        guard record.status == .authorizedAlways, !record.provisional else { return false }
        return usesLocation(app)
    }

    /// The background use counted so far, the running stretch included.
    func alwaysUse(of app: Int) -> Span {
        let stored = apps[app].alwaysUse
        guard let since = apps[app].alwaysUseSince else { return stored }
        return Span(nanoseconds: stored.nanoseconds &+ now.since(since).nanoseconds)
    }

    /// Starts or stops the count as the app's state says, and raises the prompt once the count has reached
    /// the period (P12); otherwise arms the deadline at which it will.
    mutating func updateAlwaysUse(_ app: Int) {
        let counts = countsAlwaysUse(app)
        if apps[app].alwaysUseSince != nil && !counts {
            foldAlwaysUse(app)
            apps[app].alwaysUseSince = nil
            apps[app].reconfirmAt = nil
            return
        }
        guard counts else { return }
        if apps[app].alwaysUseSince == nil { apps[app].alwaysUseSince = now }
        let used = alwaysUse(of: app)
        let period = configuration.alwaysReconfirm
        guard used < period else {
            apps[app].reconfirmAt = nil
            if !apps[app].suppressed.contains(.alwaysReconfirm)
                && !apps[app].queue.contains(where: { prompts[$0]?.key == .alwaysReconfirm })
            {
                foldAlwaysUse(app)
                raise(.alwaysReconfirm, app: app)
            }
            return
        }
        let at = now.adding(Span(nanoseconds: period.nanoseconds - used.nanoseconds))
        guard apps[app].reconfirmAt != at else { return }
        apps[app].reconfirmAt = at
        deadlines.insert(at, .alwaysReconfirm(app))
    }

    /// Adds the running stretch to the stored count and stores it.
    private mutating func foldAlwaysUse(_ app: Int) {
        let used = alwaysUse(of: app)
        if apps[app].alwaysUseSince != nil { apps[app].alwaysUseSince = now }
        guard used != apps[app].alwaysUse else { return }
        apps[app].alwaysUse = used
        persist(.alwaysUse(apps[app].key, used))
    }

    /// The period starts over (P13: an answer; or the record left confirmed Always).
    mutating func restartAlwaysUse(_ app: Int) {
        let zero = Span(nanoseconds: 0)
        if apps[app].alwaysUseSince != nil { apps[app].alwaysUseSince = now }
        apps[app].reconfirmAt = nil
        guard apps[app].alwaysUse != zero else { return }
        apps[app].alwaysUse = zero
        persist(.alwaysUse(apps[app].key, zero))
    }
}
