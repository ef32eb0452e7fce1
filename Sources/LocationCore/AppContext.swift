/// What every session and stream of one app shares when its diagnostics are computed, with the
/// global switch and the provider's state: everything the rules of §7 read, so that they are pure
/// functions of a context built once per app and flush.
struct AppContext {
    var record: AuthorizationRecord
    var inUse: Bool
    var effectiveRequirement: Requirement?
    var optedOut: Bool
    /// S11: an explicit session ≥ whenInUse, or a `none` one while authorized.
    var holdsServiceSession: Bool
    var authorizationPending: Bool
    var upgradePending: Bool
    var accuracyPending: [String]
    var servicesEnabled: Bool
    var providerHasFix: Bool
    var providerStationary: Bool
    var storeHealthy: Bool

    /// D1, D2, D3 (authorization part) and D4, shared by sessions and streams of requirement `requirement`.
    private func commonMask(_ requirement: Requirement, monitor: Bool) -> DiagnosticMask {
        var mask = DiagnosticMask()
        let status = record.status
        if !servicesEnabled { mask.formUnion([.authorizationDenied, .authorizationDeniedGlobally]) }
        if status == .denied { mask.insert(.authorizationDenied) }
        if status == .restricted { mask.insert(.authorizationRestricted) }
        let alwaysExempt =
            monitor ? status == .authorizedAlways : (requirement == .always && status == .authorizedAlways)
        if requirement >= .whenInUse && servicesEnabled && status != .denied && status != .restricted
            && !inUse && !alwaysExempt
        {
            mask.insert(.insufficientlyInUse)
        }
        if authorizationPending
            || (upgradePending && requirement == .always && !record.provisional)
        {
            mask.insert(.authorizationRequestInProgress)
        }
        return mask
    }

    /// A session's mask (§7, session column).
    func mask(of session: SessionEntry) -> DiagnosticMask {
        mask(requirement: session.requirement, kind: session.kind, purposeKey: session.purposeKey)
    }

    /// A session's mask from the fields it reads, for callers that hold a slot rather than an entry.
    func mask(requirement: Requirement, kind: SessionKind, purposeKey: String?) -> DiagnosticMask {
        var mask = commonMask(requirement, monitor: false)
        let record = record
        if let key = purposeKey {
            let pending = accuracyPending.contains(key)
            if pending { mask.insert(.authorizationRequestInProgress) }
            // D6: however the grant came to be missing.
            if record.status.isAuthorized && record.accuracyLimited && !pending { mask.insert(.fullAccuracyDenied) }
        }
        // D5
        if requirement == .always && record.status == .authorizedWhenInUse
            && (record.alwaysDecision == .declined || record.oneTime)
        {
            mask.insert(.alwaysAuthorizationDenied)
        }
        // D7: a background activity session is not a service session; an opted-out app needs one too.
        if kind == .backgroundActivity && optedOut && !holdsServiceSession {
            mask.insert(.serviceSessionRequired)
        }
        return mask
    }

    /// A location stream's mask (§7, update and monitor-event columns); R = max(whenInUse, effective).
    func streamMask(_ kind: StreamEntry.Kind) -> DiagnosticMask {
        switch kind {
        case .liveUpdates: streamMask(monitor: false)
        case .monitorEvents: streamMask(monitor: true)
        default: []
        }
    }

    /// The mask of a `LiveUpdates` stream, or with `monitor` of a `MonitorEvents` stream.
    func streamMask(monitor: Bool) -> DiagnosticMask {
        let requirement = max(.whenInUse, effectiveRequirement ?? .whenInUse)
        var mask = commonMask(requirement, monitor: monitor)
        let record = record
        if !accuracyPending.isEmpty { mask.insert(.authorizationRequestInProgress) }
        if record.accuracyLimited { mask.insert(.accuracyLimited) }
        if optedOut && !holdsServiceSession { mask.insert(.serviceSessionRequired) }
        if monitor && !storeHealthy { mask.insert(.persistenceUnavailable) }
        if !monitor {
            let mayUse = inUse || (requirement == .always && record.status == .authorizedAlways)
            if record.status.isAuthorized && mayUse && !providerHasFix { mask.insert(.locationUnavailable) }
            if providerStationary { mask.insert(.stationary) }
        }
        return mask
    }

    /// Whether an app's monitors evaluate their conditions now (U4): authorized, and none of
    /// ``DiagnosticMask/withholdingMonitoring`` — so monitoring out of use needs `authorizedAlways` (D4).
    func monitoringAllowed() -> Bool {
        record.status.isAuthorized && streamMask(monitor: true).isDisjoint(with: .withholdingMonitoring)
    }

    /// D12: active when authorized (or R = none) and no limiting bit; lingering without an owner.
    func state(of session: SessionEntry, mask: DiagnosticMask) -> SessionState {
        state(owned: session.owner != nil, requirement: session.requirement, mask: mask)
    }

    func state(owned: Bool, requirement: Requirement, mask: DiagnosticMask) -> SessionState {
        if !owned { return .lingering }
        let authorized = record.status.isAuthorized || requirement == .noAuthorization
        return authorized && mask.isDisjoint(with: .limitingSession) ? .active : .limited
    }

    /// A session as replies show it, at `now`.
    func view(of session: SessionEntry, now: Instant) -> SessionView {
        let mask = mask(of: session)
        return SessionView(
            id: session.id,
            appID: session.appID,
            kind: session.kind,
            requirement: session.requirement,
            purposeKey: session.purposeKey,
            state: state(of: session, mask: mask),
            diagnostic: mask,
            deadline: session.lingerEnds,
            remaining: session.lingerEnds.map { $0.since(now) },
            user: session.user
        )
    }
}
