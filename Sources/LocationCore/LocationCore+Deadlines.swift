// Deadlines: lingering, background grace, relaunch and restart windows, prompt timeouts (L6).
extension LocationCore {
    /// Whether the owner of a heap entry still has that deadline; moved or dropped ones are skipped.
    private func stands(_ entry: DeadlineHeap.Entry) -> Bool {
        switch entry.key {
        case .lingering(let id): sessions[id]?.lingerEnds == entry.at
        case .backgroundGrace(let appID): apps[appID]?.graceEnds == entry.at
        case .relaunchWindow(let appID): apps[appID]?.relaunchEnds == entry.at
        case .restartWindow(let appID): apps[appID]?.restartEnds == entry.at
        case .promptTimeout(let id): prompts[id]?.timeoutAt == entry.at
        }
    }

    /// Re-checks every deadline at or before now; a late or repeated wake-up does nothing extra.
    ///
    /// Each deadline is handled at its own instant (but not before `previous`, the last instant seen), so
    /// what it starts, such as a prompt's timeout, counts from when it was due, however late the wake-up.
    mutating func processDueDeadlines(since previous: Instant) {
        let wake = now
        defer { now = wake }
        while let entry = deadlines.top, entry.at <= wake {
            deadlines.popTop()
            guard stands(entry) else { continue }
            now = max(entry.at, previous)
            switch entry.key {
            case .lingering(let id):
                endSession(id, final: true)
            case .backgroundGrace(let appID):
                apps[appID]!.graceEnds = nil
                lifecycleChanged(appID, from: apps[appID]!.state)
                // P4: grace expiry is a moment for the provisional upgrade, even after a dismissal.
                apps[appID]!.suppressed.remove(.alwaysUpgrade)
                evaluatePrompts(appID)
            case .relaunchWindow(let appID):
                let old = apps[appID]!.state
                apps[appID]!.state = .notRunning
                apps[appID]!.relaunchEnds = nil
                apps[appID]!.inUseAtTermination = false
                cancelPrompts(of: appID)
                lifecycleChanged(appID, from: old)
            case .restartWindow(let appID):
                apps[appID]!.restartEnds = nil
                guard apps[appID]!.clients.isEmpty else { continue }
                let old = apps[appID]!.state
                apps[appID]!.state = .notRunning
                apps[appID]!.graceEnds = nil
                cancelPrompts(of: appID)
                lifecycleChanged(appID, from: old)
            case .promptTimeout(let id):
                dismiss(id)
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
