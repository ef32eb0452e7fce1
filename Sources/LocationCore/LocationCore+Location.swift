// Location (SEMANTICS U1, U2, D9, D10): the provider's fixes, turned into live updates.
//
// A fix refreshes every `LiveUpdates` stream: its mask is recomputed (D9's `locationUnavailable` clears with
// the first fix, D10's `stationary` comes and goes with movement), and it is sent an update when its mask
// changed or when the fix passes its filters (``LocationDelivery``). An update carries a location iff the app
// is authorized, the provider has a fix and the mask has none of ``DiagnosticMask/withholdingLocation``
// (U1); at reduced accuracy the location is quantised (U2). Fixes also drive the monitors (U4).
extension LocationCore {
    /// The provider delivered a fix; one with no place on Earth (not finite, or out of range) is dropped.
    mutating func receive(_ fix: Fix) {
        guard fix.isOnEarth else { return }
        lastFix = fix
        fixArrived = true
        if !providerHasFix {
            providerHasFix = true
            everythingDirty = true
        }
        let deadline = stationary.deadline
        if stationary.observe(fix, at: now) { markLocationStreamsDirty() }
        if let next = stationary.deadline, next != deadline { deadlines.insert(next, .stationary) }
        evaluateConditions(against: fix)
    }

    /// The provider has no fix any more (D9); movement is unknown until fixes return (D10).
    mutating func loseFix() {
        _ = stationary.reset()
        guard providerHasFix else { return }
        providerHasFix = false
        everythingDirty = true
    }

    /// The stationary deadline passed with no movement (D10).
    mutating func stationaryDeadlineReached() {
        if stationary.settle(at: now) { markLocationStreamsDirty() }
    }

    /// Whether the stationary deadline at `instant` still stands.
    func stationaryDeadline(is instant: Instant) -> Bool { stationary.deadline == instant }

    mutating func storeHealthChanged(_ healthy: Bool) {
        guard healthy != storeHealthy else { return }
        storeHealthy = healthy
        markLocationStreamsDirty()
    }

    /// Marks the apps with location streams for re-evaluation: only their streams read the provider's state.
    mutating func markLocationStreamsDirty() {
        for app in apps.ordered where !apps[app].locationStreams.isEmpty { markDirty(app) }
    }

    /// After the diagnostics of a fix are flushed: offers the fix to every `LiveUpdates` stream that the
    /// flush did not already refresh, in app-id order.
    mutating func deliverFix() {
        for app in apps.ordered where !apps[app].locationStreams.isEmpty {
            var context: AppContext?
            for stream in apps[app].locationStreams {
                guard let entry = streams[stream], entry.refreshed != eventNumber, entry.delivery != nil else {
                    continue
                }
                let appContext = context ?? self.context(of: app)
                context = appContext
                refreshLocationStream(stream, context: appContext)
            }
        }
    }

    /// Recomputes a location stream's mask and sends what changed: a `MonitorEvents` stream its monitor's
    /// flags when they change; a `LiveUpdates` stream an update when its mask changed or a fix arrived that
    /// passes its filters, with the location U1 allows.
    mutating func refreshLocationStream(_ stream: CallID, context: AppContext) {
        // A copy written back at the end: the entry holds plain values, so copying it allocates nothing.
        guard var entry = streams[stream] else { return }
        let mask = context.streamMask(entry.kind)
        let changed = mask != entry.lastMask
        entry.lastMask = mask
        entry.refreshed = eventNumber
        if var delivery = entry.delivery {
            var location: Fix?
            if context.record.status.isAuthorized, providerHasFix, let fix = lastFix,
                mask.isDisjoint(with: .withholdingLocation)
            {
                // U2 for a reduced grant (D8); U5 for a stream that asked for reduced accuracy.
                let reduced = mask.contains(.accuracyLimited) || delivery.reducedByChoice
                if changed {
                    location = delivery.current(fix, reduced: reduced, at: now)
                } else if fixArrived {
                    location = delivery.fresh(fix, reduced: reduced, at: now)
                }
            } else {
                delivery.withheld()
            }
            entry.delivery = delivery
            if changed || location != nil { emit(stream, .update(mask, location: location)) }
        } else if changed, case .monitorEvents = entry.kind {
            emit(stream, .monitor(mask))
        }
        streams[stream] = entry
    }
}
