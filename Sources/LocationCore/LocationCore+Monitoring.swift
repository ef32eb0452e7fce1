// Monitoring (CLMonitor, SEMANTICS U4): named monitors of circular conditions and their events.
//
// The conditions are kept per app in the order they were added, and stored (they outlive restarts and
// reboots); the first 20 are monitored and the rest report `conditionLimitExceeded`. Every fix evaluates the
// monitored, supported conditions of every app whose monitors may run now — authorized, in use or
// `authorizedAlways`, precise, and none of the other withholding flags (``AppContext/monitoringAllowed()``) —
// with the hysteresis of ``CircularCondition/state(after:from:)``. A change of state is stored and sent to the
// app's open `MonitorEvents` streams of that monitor; while monitoring may not run, states stay as they were
// and the streams' flags say why.
extension LocationCore {
    /// After `MonitorEvents` opened its stream: one event per condition of the monitor, at once.
    mutating func startMonitor(_ call: CallID, app: Int, monitor: String) {
        guard streams[call] != nil else { return }
        monitorStreams[call] = (app, monitor)
        let mask = context(of: app).streamMask(monitor: true)
        for (entry, overLimit) in conditions[app, default: MonitorConditions()].conditions(of: monitor) {
            emit(call, .monitorCondition(event(entry, overLimit: overLimit, mask: mask)))
        }
    }

    mutating func addCondition(
        _ call: CallID,
        app: Int,
        monitor: String,
        identifier: String,
        condition: CircularCondition
    ) {
        if let problem = condition.problem {
            return fail(call, .invalidParameter(parameter: "condition", reason: problem))
        }
        // F7: a new condition past the limit is refused; replacing one the app has is not a new one.
        let limit = configuration.maxConditionsPerApp
        if let held = conditions[app], held.count >= limit, held.index(monitor: monitor, identifier: identifier) == nil
        {
            return fail(call, .limitExceeded(limit: "max-conditions-per-app", maximum: limit))
        }
        let index = conditions[app, default: MonitorConditions()].add(
            monitor: monitor,
            identifier: identifier,
            condition: condition,
            position: nextConditionPosition
        )
        // A new condition is evaluated at once against the current fix, as CLMonitor does on `add`.
        if providerHasFix, let fix = lastFix, context(of: app).monitoringAllowed() {
            conditions[app]?.evaluate(index, against: fix)
        }
        guard let entry = conditions[app]?[index] else {
            preconditionFailure("add returns the index of the entry it added or replaced in the app's conditions")
        }
        nextConditionPosition = max(nextConditionPosition, entry.position + 1)
        persist(.condition(snapshot(of: entry, app: app)))
        announceConditions(app: app, monitor: monitor, identifiers: [identifier])
        reply(call, .empty)
    }

    mutating func removeCondition(_ call: CallID, app: Int, monitor: String, identifier: String) {
        let before = overLimitConditions(of: app)
        if conditions[app, default: MonitorConditions()].remove(monitor: monitor, identifier: identifier) {
            persist(.conditionRemoved(apps[app].key, monitor: monitor, identifier: identifier))
        }
        // A removal can bring conditions past the limit back within it: they report the change.
        let after = overLimitConditions(of: app)
        for (otherMonitor, identifiers) in Dictionary(grouping: before.subtracting(after), by: \.monitor) {
            announceConditions(app: app, monitor: otherMonitor, identifiers: identifiers.map(\.identifier))
        }
        reply(call, .empty)
    }

    /// Evaluates every app's monitored conditions against a fix, in app-id order; stores and reports changes.
    mutating func evaluateConditions(against fix: Fix) {
        guard !conditions.isEmpty else { return }
        for app in conditions.keys.sorted(by: { apps.rank[$0] < apps.rank[$1] }) {
            guard conditions[app]?.isEmpty == false, context(of: app).monitoringAllowed(),
                let changed = conditions[app]?.evaluate(against: fix), !changed.isEmpty,
                let evaluated = conditions[app]
            else { continue }
            var byMonitor: [String: [String]] = [:]
            for index in changed {
                let entry = evaluated[index]
                persist(.condition(snapshot(of: entry, app: app)))
                byMonitor[entry.monitor, default: []].append(entry.identifier)
            }
            for (monitor, identifiers) in byMonitor.sorted(by: { $0.key < $1.key }) {
                announceConditions(app: app, monitor: monitor, identifiers: identifiers)
            }
        }
    }

    /// Sends the current event of the named conditions to the app's open streams of that monitor.
    private mutating func announceConditions(app: Int, monitor: String, identifiers: [String]) {
        let open = monitorStreams.filter { $0.value.app == app && $0.value.monitor == monitor }.keys
        guard !open.isEmpty else { return }
        let mask = context(of: app).streamMask(monitor: true)
        let current = conditions[app, default: MonitorConditions()].conditions(of: monitor)
        // Streams in the order they were opened, so that output is deterministic.
        for stream in open.sorted(by: { ($0.client.raw, $0.serial) < ($1.client.raw, $1.serial) })
        where streams[stream] != nil {
            for (condition, overLimit) in current where identifiers.contains(condition.identifier) {
                emit(stream, .monitorCondition(event(condition, overLimit: overLimit, mask: mask)))
            }
        }
    }

    private func overLimitConditions(of app: Int) -> Set<MonitorConditions.Key> {
        Set(conditions[app, default: MonitorConditions()].overLimit)
    }

    /// A condition's event: the monitor's flags, and the condition's own (limit, support).
    private func event(_ entry: MonitorConditions.Entry, overLimit: Bool, mask: DiagnosticMask) -> MonitorEventView {
        var diagnostic = mask
        if overLimit { diagnostic.insert(.conditionLimitExceeded) }
        if !entry.condition.isSupported { diagnostic.insert(.conditionUnsupported) }
        return MonitorEventView(
            monitor: entry.monitor,
            identifier: entry.identifier,
            state: entry.state,
            diagnostic: diagnostic,
            date: entry.date
        )
    }

    func snapshot(of entry: MonitorConditions.Entry, app: Int) -> ConditionSnapshot {
        ConditionSnapshot(
            appID: apps[app].appID,
            monitor: entry.monitor,
            identifier: entry.identifier,
            condition: entry.condition,
            state: entry.state,
            date: entry.date,
            position: entry.position,
            user: apps[app].user
        )
    }
}
