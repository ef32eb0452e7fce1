import LocationCore

/// One event of an exploration: the state before it, what happened, what the core did, and the state after, with
/// what each side's core shows (``CoreReading``), read once for every check.
package struct Transition {
    package private(set) var before: ModelState
    package private(set) var event: ModelEvent
    package private(set) var actions: [Action]
    package private(set) var after: ModelState
    package private(set) var readingBefore: CoreReading
    package private(set) var readingAfter: CoreReading

    package init(before: ModelState, event: ModelEvent, actions: [Action], after: ModelState) {
        self.before = before
        self.event = event
        self.actions = actions
        self.after = after
        readingBefore = CoreReading(before)
        readingAfter = CoreReading(after)
    }

    /// A transition out of `state` that has not happened yet; ``take(_:)`` makes it one.
    init(from state: ModelState) {
        let reading = CoreReading(state)
        (before, event, actions, after) = (state, .restart, [], state)
        (readingBefore, readingAfter) = (reading, reading)
    }

    /// Becomes the transition from the same state by `event`: a fresh copy of the state before, the event
    /// applied to it, and its reading. Reusing one value copies the state once per event.
    mutating func take(_ event: ModelEvent) {
        after = before
        self.event = event
        actions = after.apply(event)
        readingAfter = CoreReading(after)
    }
}

/// A rule checked after every event, named by the SEMANTICS ids it stands for.
package struct Invariant: Sendable {
    package let name: String
    package let rules: [String]
    /// What is wrong after the transition, or `nil`.
    package let check: @Sendable (Transition) -> String?

    package init(_ name: String, rules: [String], check: @escaping @Sendable (Transition) -> String?) {
        self.name = name
        self.rules = rules
        self.check = check
    }

    /// Every invariant the explorer checks.
    package static let all: [Invariant] = [
        locationNeedsAuthorization, approximateGetsCells, promptsOnlyWhenAsked, grantsEndWithUse, nothingLost,
        diagnosticsMatchState, usersApart, desktopReportHolds, deadlinesRechecked,
    ]
}

extension Invariant {
    /// U1, D1, A4: an update carries a location only for an authorized app while location services are on.
    package static let locationNeedsAuthorization = Invariant(
        "no location without authorization or with services off",
        rules: ["U1", "D1", "A4"]
    ) { transition in
        for (key, location) in transition.locations {
            let core = transition.after.core
            if !core.locationServicesEnabled { return "\(key) got \(location) with location services off" }
            let status = core.authorizationView(key).status
            if !status.isAuthorized { return "\(key) got \(location) while \(status.rawValue)" }
        }
        return nil
    }

    /// U2, D8: an app whose effective accuracy is reduced gets only the centre of a grid cell, 5 km accurate.
    package static let approximateGetsCells = Invariant(
        "approximate apps only get grid cells",
        rules: ["U2", "D8"]
    ) { transition in
        for (key, location) in transition.locations {
            let view = transition.after.core.authorizationView(key)
            guard view.accuracy == .reducedAccuracy && !view.temporaryFullAccuracy else { continue }
            let cell = GridCell(latitude: location.latitude, longitude: location.longitude)
            if location.horizontalAccuracy != 5000 || location.latitude != cell.centreLatitude
                || location.longitude != cell.centreLongitude
            {
                return "\(key), reduced, got \(location), not its cell's centre"
            }
        }
        return nil
    }

    /// S6, S7, S8: a prompt reaches the agent only while its question is open: authorization while
    /// `notDetermined`, the upgrade while Always is undecided, temporary full accuracy while reduced; never with
    /// services off.
    package static let promptsOnlyWhenAsked = Invariant(
        "prompts only while their question is open",
        rules: ["S6", "S7", "S8"]
    ) { transition in
        let core = transition.after.core
        for case .emit(transition.after.agent, .prompt(let prompt)) in transition.actions {
            let key = AppKey(prompt.appID, user: prompt.user)
            guard let record = core.storedRecord(key) else { return "prompt \(prompt.id) of unknown \(key)" }
            if !core.locationServicesEnabled { return "\(prompt.kind.rawValue) prompt of \(key) with services off" }
            let open: Bool
            switch prompt.kind {
            case .authorization: open = record.status == .notDetermined
            case .alwaysUpgrade: open = record.status.isAuthorized && record.alwaysDecision == .undecided
            case .temporaryFullAccuracy:
                open = record.status.isAuthorized && record.accuracyLimited
            case .alwaysReconfirm: open = record.status == .authorizedAlways
            }
            if !open { return "\(prompt.kind.rawValue) prompt of \(key) raised with record \(record)" }
        }
        return nil
    }

    /// L5, P2: an Allow Once grant and a temporary full-accuracy grant last only while the app is in use.
    package static let grantsEndWithUse = Invariant(
        "Allow Once and temporary full accuracy end when use ends",
        rules: ["L5", "P2", "P7"]
    ) { transition in
        for app in transition.readingAfter.apps {
            guard let record = app.record, !app.inUse else { continue }
            let key = app.key
            if record.oneTime { return "\(key) is not in use and keeps Allow Once" }
            if record.temporaryFullAccuracy { return "\(key) is not in use and keeps temporary full accuracy" }
        }
        return nil
    }
}
