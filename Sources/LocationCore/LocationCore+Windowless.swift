// Apps without a window (SEMANTICS L14): never in front, so they ask for Always.
extension LocationCore {
    /// L14: a While Using record of an app with no window comes from before its manifest said so: it becomes Always,
    /// within the administrator's setting (H5), announced and logged.
    mutating func carryOverWindowless() {
        for app in apps.ordered where apps[app].declares.backgroundOnly {
            let record = apps[app].record
            guard record.status == .authorizedWhenInUse, !record.oneTime else { continue }
            var always = record
            always.status = .authorizedAlways
            always.provisional = false
            always.alwaysDecision = .granted
            guard withinPolicy(app, always).status == .authorizedAlways else { continue }
            changeRecord(app, to: always, by: .answer)
            announce(.authorizationChanged, app: app, "whileUsing -> always: no window, carried over (L14)")
            messages.append(.carriedOver(apps[app].key))
        }
    }

    /// L14: While Using, which a person may not choose for an app with no window: it would never locate.
    static func windowlessRefusal(_ appID: String) -> LocationError {
        .invalidParameter(
            parameter: "setting",
            reason: "\(appID) has no window, so it is never in front and While Using would never let it locate: "
                + "choose always or never"
        )
    }
}
