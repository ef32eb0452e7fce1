// Monitoring (CLMonitor, SEMANTICS U4): named monitors of circular conditions and their events.
//
// The conditions are kept per app in the order they were added; the first 20 are monitored and the rest
// report `conditionLimitExceeded`. Until a provider evaluates them, every condition is `unknown`.
extension LocationCore {
    /// After `MonitorEvents` opened its stream: one event per condition of the monitor, at once.
    mutating func startMonitor(_ call: CallID, app: Int, monitor: String) {
        guard let stream = streams[call] else { return }
        monitorStreams[call] = (app, monitor)
        for (entry, overLimit) in conditions[app, default: MonitorConditions()].conditions(of: monitor) {
            emit(call, .monitorCondition(event(entry, overLimit: overLimit, mask: stream.lastMask ?? [])))
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
        conditions[app, default: MonitorConditions()].add(
            monitor: monitor,
            identifier: identifier,
            condition: condition
        )
        announceConditions(app: app, monitor: monitor, identifiers: [identifier])
        reply(call, .empty)
    }

    mutating func removeCondition(_ call: CallID, app: Int, monitor: String, identifier: String) {
        let before = overLimitConditions(of: app)
        conditions[app, default: MonitorConditions()].remove(monitor: monitor, identifier: identifier)
        // A removal can bring conditions past the limit back within it: they report the change.
        let after = overLimitConditions(of: app)
        for (otherMonitor, identifiers) in Dictionary(grouping: before.subtracting(after), by: \.monitor) {
            announceConditions(app: app, monitor: otherMonitor, identifiers: identifiers.map(\.identifier))
        }
        reply(call, .empty)
    }

    /// Sends the current event of the named conditions to the app's open streams of that monitor.
    private mutating func announceConditions(app: Int, monitor: String, identifiers: [String]) {
        let current = conditions[app, default: MonitorConditions()].conditions(of: monitor)
        for (stream, owner) in monitorStreams where owner.app == app && owner.monitor == monitor {
            guard let entry = streams[stream] else { continue }
            for (condition, overLimit) in current where identifiers.contains(condition.identifier) {
                emit(stream, .monitorCondition(event(condition, overLimit: overLimit, mask: entry.lastMask ?? [])))
            }
        }
    }

    private func overLimitConditions(of app: Int) -> Set<MonitorConditions.Key> {
        Set(conditions[app, default: MonitorConditions()].overLimit)
    }

    private func event(_ entry: MonitorConditions.Entry, overLimit: Bool, mask: DiagnosticMask) -> MonitorEventView {
        MonitorEventView(
            monitor: entry.monitor,
            identifier: entry.identifier,
            state: entry.state,
            diagnostic: overLimit ? mask.union(.conditionLimitExceeded) : mask
        )
    }
}
