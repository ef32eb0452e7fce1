// Deadlines: lingering, background grace, relaunch and restart windows, prompt timeouts (L6).
extension LocationCore {
    /// Whether the owner of a heap entry still has that deadline; moved or dropped ones are skipped.
    private func stands(_ entry: DeadlineHeap.Entry) -> Bool {
        switch entry.key {
        case .lingering(let id): sessions.slot(of: id).map { sessions[$0].lingerEnds == entry.at } ?? false
        case .backgroundGrace(let app): apps[app].graceEnds == entry.at
        case .relaunchWindow(let app): apps[app].relaunchEnds == entry.at
        case .restartWindow(let app): apps[app].restartEnds == entry.at
        case .promptTimeout(let id): prompts[id]?.timeoutAt == entry.at
        case .agentWait(let id): prompts[id]?.agentWaitEnds == entry.at
        case .alwaysReconfirm(let app): apps[app].reconfirmAt == entry.at
        case .stationary: stationaryDeadline(is: entry.at)
        }
    }

    /// At most this many deadlines are handled per event (F21): a burst of expiries due at once (a thousand
    /// clients gone together) is handled over several wake-ups, between which the shell serves other calls.
    package static let deadlineBatch = 256

    /// Re-checks the deadlines at or before now, the earliest first, at most ``deadlineBatch`` of them; a late or
    /// repeated wake-up does nothing extra. What is left due stays armed at its own instant, so ``finish()`` asks
    /// for a wake-up at once (F21, L6).
    ///
    /// Each deadline is handled at its own instant (but not before `previous`, the last instant seen), so
    /// what it starts, such as a prompt's timeout, counts from when it was due, however late the wake-up.
    mutating func processDueDeadlines(since previous: Instant) {
        let wake = now
        defer { now = wake }
        var budget = Self.deadlineBatch
        deadlinesLeftDue = false
        while let entry = deadlines.top, entry.at <= wake {
            guard budget > 0 else {
                deadlinesLeftDue = true
                return
            }
            deadlines.popTop()
            budget -= 1
            guard stands(entry) else { continue }
            now = max(entry.at, previous)
            switch entry.key {
            case .lingering(let id):
                if let slot = sessions.slot(of: id) { endSession(slot, final: true) }
            case .backgroundGrace(let app):
                apps[app].graceEnds = nil
                lifecycleChanged(app, from: apps[app].state)
                // P4: grace expiry is a moment for the provisional upgrade, even after a dismissal.
                apps[app].suppressed.remove(.alwaysUpgrade)
                evaluatePrompts(app)
            case .relaunchWindow(let app):
                let old = apps[app].state
                apps[app].state = .notRunning
                apps[app].relaunchEnds = nil
                apps[app].inUseAtTermination = false
                cancelPrompts(of: app)
                lifecycleChanged(app, from: old)
            case .restartWindow(let app):
                apps[app].restartEnds = nil
                guard apps[app].clients.isEmpty else { continue }
                let old = apps[app].state
                apps[app].state = .notRunning
                apps[app].graceEnds = nil
                cancelPrompts(of: app)
                lifecycleChanged(app, from: old)
            case .promptTimeout(let id):
                dismiss(id)
            case .agentWait(let id):
                agentWaitEnded(id)
            case .alwaysReconfirm(let app):
                apps[app].reconfirmAt = nil
                updateAlwaysUse(app)
            case .stationary:
                stationaryDeadlineReached()
            }
        }
    }

    /// The earliest deadline that still stands.
    mutating func nextDeadline() -> Instant? {
        while let entry = deadlines.top {
            if stands(entry) { return entry.at }
            deadlines.popTop()
        }
        return nil
    }
}
