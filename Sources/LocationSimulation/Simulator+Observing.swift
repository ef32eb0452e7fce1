import LocationConfiguration
import LocationCore
import LocationWireErrors

// What the core said, turned into the timeline: sessions, prompts, diagnostics and what is in use.
extension Simulator {
    mutating func observe(_ actions: [Action]) {
        let first = entries.count
        var appMoved: [String: Int] = [:]
        // Replies come before stream messages: names are bound before the Watch stream mentions the session.
        var adopted: [SessionView] = []
        for action in actions {
            switch action {
            case .reply(_, .session(let view)): bind(view.id, app: label(AppKey(view.appID, user: view.user)))
            case .reply(_, .hello(_, let lingeringSessions)): adopted = lingeringSessions.sorted { $0.id < $1.id }
            default: break
            }
        }
        for action in actions {
            switch action {
            case .armTimer(let instant):
                armed = instant
            case .provider(let running):
                var entry = TimelineEntry(
                    time: time,
                    app: nil,
                    subject: .provider,
                    what: running ? "started" : "stopped"
                )
                entry.state = running ? "running" : "idle"
                record(entry)
            case .fail(let call, let failure) where !isSetup:
                let app = processes.first { $0.value.client == call.client }?.key ?? eventApp
                record(error(app, failure.wireName, failure.message))
            case .emit(let stream, .event(let event)) where stream == watchCall:
                watched(event)
                if event.kind == .appStateChanged, let app = label(of: event) { appMoved[app] = entries.count - 1 }
            case .emit(let stream, .prompt(let view)) where stream == agentCall:
                promptViews[view.id] = view
                shownPrompts[label(AppKey(view.appID, user: view.user))] = view.id
            case .emit(let stream, .withdrawn(let id)) where stream == agentCall:
                if let view = promptViews[id], shownPrompts[label(AppKey(view.appID, user: view.user))] == id {
                    shownPrompts[label(AppKey(view.appID, user: view.user))] = nil
                }
            case .emit(let stream, .update(let mask, _)):
                updated(stream, mask: mask)
            case .end(let stream, _):
                guard let closed = updateStreams.removeValue(forKey: stream) else { break }
                var entry = TimelineEntry(
                    time: time,
                    app: closed.app,
                    subject: .updates,
                    name: closed.name,
                    what: "ended"
                )
                entry.state = "ended"
                record(entry)
            default:
                break
            }
        }
        // L4: a Hello moves each lingering session's deadline to at least relaunch-adopt from now.
        for view in adopted {
            guard let deadline = view.deadline, deadline != lingerDeadlines[view.id] else { continue }
            lingerDeadlines[view.id] = deadline
            var entry = TimelineEntry(
                time: time,
                app: label(AppKey(view.appID, user: view.user)),
                subject: .session,
                name: sessionNames[view.id] ?? view.id.description,
                what: "lingering until \(Self.seconds(seconds(deadline))) s: a new process of its app said Hello (L4)"
            )
            entry.state = "lingering"
            entry.until = seconds(deadline)
            record(entry)
        }
        noteInUse(after: first, appMoved: appMoved)
    }

    var isSetup: Bool { if case .setup = cause { true } else { false } }

    var eventApp: String? { if case .event(let event) = cause { event.app } else { nil } }

    /// Names a session the scenario named in the call that created it, or by its wire id.
    mutating func bind(_ id: SessionID, app: String) {
        guard sessionNames[id] == nil else { return }
        var name = id.description
        if case .event(let event) = cause {
            switch event.action {
            case .createSession(_, _, let given?), .beginBackgroundActivity(let given?), .liveUpdates(let given?):
                name = given
            default: break
            }
        }
        sessionNames[id] = name
        namedSessions[app, default: [:]][name] = id
    }

    mutating func watched(_ event: AdminEvent) {
        switch event.kind {
        case .authorizationChanged:
            authorizationChanged(event)
        case .sessionCreated:
            guard let id = event.sessionID, let app = label(of: event) else { return }
            bind(id, app: app)
            let parts = event.detail.split(separator: " ").map(String.init)
            var entry = TimelineEntry(
                time: time,
                app: app,
                subject: .session,
                name: sessionNames[id],
                what: "created \(event.detail)"
            )
            entry.kind = parts.first
            entry.requirement = parts.last
            record(entry)
        case .sessionChanged:
            guard let id = event.sessionID, let app = label(of: event) else { return }
            sessionChanged(id, app: app, detail: event.detail)
        case .sessionEnded:
            guard let id = event.sessionID, let app = label(of: event) else { return }
            let reason = endReason(id)
            var entry = TimelineEntry(
                time: time,
                app: app,
                subject: .session,
                name: sessionNames[id],
                what: "ended: \(reason)"
            )
            entry.state = "ended"
            entry.reason = reason
            record(entry)
            lingering.remove(id)
            lastMasks[id] = nil
            lastStates[id] = nil
            lingerDeadlines[id] = nil
        case .promptRaised:
            promptRaised(event)
        case .promptResolved:
            promptResolved(event)
        case .appStateChanged:
            guard let app = label(of: event) else { return }
            let state = event.detail.split(separator: " ").last.map(String.init) ?? event.detail
            var entry = TimelineEntry(time: time, app: app, subject: .app, what: event.detail)
            entry.state = state
            record(entry)
        case .servicesChanged:
            // A user's own switch (H6) names its user; the machine's (A4) none.
            let whose = event.user.map { " for \(userNames[$0] ?? "uid \($0)")" } ?? ""
            var entry = TimelineEntry(
                time: time,
                app: nil,
                subject: .services,
                what: "location services \(event.detail)\(whose)"
            )
            entry.state = event.detail
            record(entry)
        }
    }

    /// An app's authorization as `Admin.Watch` reports it changed: its status and settings label, and what else holds.
    mutating func authorizationChanged(_ event: AdminEvent) {
        guard let app = label(of: event), let key = keys[app] else { return }
        let view = core.authorizationView(key)
        var extras: [String] = []
        if view.oneTime { extras.append("one-time") }
        if view.provisional { extras.append("provisional") }
        if view.accuracy == .reducedAccuracy { extras.append("approximate") }
        if view.temporaryFullAccuracy { extras.append("temporary full accuracy") }
        let what = "\(view.status.rawValue) (\(view.settingsLabel.rawValue))"
        var entry = TimelineEntry(
            time: time,
            app: app,
            subject: .authorization,
            what: what + (extras.isEmpty ? "" : ", " + extras.joined(separator: ", "))
        )
        entry.status = view.status.rawValue
        entry.settingsLabel = view.settingsLabel.rawValue
        entry.accuracy = view.accuracy.rawValue
        entry.oneTime = view.oneTime
        entry.provisional = view.provisional
        entry.temporaryFullAccuracy = view.temporaryFullAccuracy
        record(entry)
    }

    /// `Admin.Watch` reports `lingering`, `resumed`, or the new state and mask as `limited [flag,flag]`.
    mutating func sessionChanged(_ id: SessionID, app: String, detail: String) {
        let name = sessionNames[id]
        if detail == "resumed" {
            lingering.remove(id)
            lingerDeadlines[id] = nil
            return record(TimelineEntry(time: time, app: app, subject: .session, name: name, what: "resumed (S14)"))
        }
        if detail == "lingering" {
            lingering.insert(id)
            lastStates[id] = "lingering"
            var entry = TimelineEntry(time: time, app: app, subject: .session, name: name, what: "lingering")
            entry.state = "lingering"
            if let deadline = core.sessionView(id)?.deadline {
                lingerDeadlines[id] = deadline
                entry.until = seconds(deadline)
                entry.what += " until \(Self.seconds(seconds(deadline))) s (L3)"
            }
            return record(entry)
        }
        guard let space = detail.firstIndex(of: " ") else { return }
        let state = String(detail[..<space])
        let listed = detail[detail.index(after: space)...].strippingBrackets()
        let flagNames = listed.isEmpty ? [] : listed.split(separator: ",").map(String.init)
        let mask = DiagnosticMask(flagNames: flagNames) ?? []
        if state == "lingering" { lingering.insert(id) } else { lingering.remove(id) }
        let previous = lastMasks[id] ?? []
        // Lingering starts with its own line; the mask that comes with it is news only if it changed.
        guard mask != previous || state != lastStates[id] else { return }
        lastMasks[id] = mask
        lastStates[id] = state
        let added = mask.subtracting(previous).flagNames
        let removed = previous.subtracting(mask).flagNames
        let changes = added.map { "+" + $0 } + removed.map { "-" + $0 }
        var entry = TimelineEntry(
            time: time,
            app: app,
            subject: .session,
            name: name,
            what: state + (changes.isEmpty ? "" : " " + changes.joined(separator: " "))
        )
        entry.state = state
        entry.flags = mask.flagNames
        entry.added = added
        entry.removed = removed
        record(entry)
    }

    /// Why a session ended, from what the simulator had just asked of the core.
    func endReason(_ id: SessionID) -> String {
        switch cause {
        case .setup: return "ended"
        case .timer: return lingering.contains(id) ? "its lingering deadline passed (L3, L4)" : "a deadline passed"
        case .event(let event):
            switch event.action {
            case .invalidateSession: return "invalidated (S3)"
            case .goodbye: return "the process said goodbye (L3)"
            case .terminate: return "its stream's connection closed (S10)"
            case .createSession(_, _, let name?), .beginBackgroundActivity(let name?), .liveUpdates(let name?):
                return "covered by \(name) (L4)"
            case .createSession, .relaunch, .beginBackgroundActivity, .liveUpdates:
                return "covered by a new session (L4)"
            default: return "ended"
            }
        }
    }

    mutating func promptRaised(_ event: AdminEvent) {
        guard let app = label(of: event), let idText = event.detail.split(separator: " ").first,
            let id = PromptID(String(idText))
        else { return }
        let view = promptViews[id] ?? core.queuedPrompts(of: keys[app] ?? AppKey.noUser(app)).first { $0.id == id }
        guard let view else { return }
        promptViews[id] = view
        var what = "\(view.kind.rawValue) raised"
        if let key = view.purposeKey { what += " for \(key)" }
        what += ": " + view.options.map(\.rawValue).joined(separator: " | ")
        if view.kind == .authorization {
            what +=
                "; accuracy \(view.defaultAccuracy.rawValue)" + (view.accuracyToggle ? ", toggle shown" : ", no toggle")
        }
        var entry = TimelineEntry(time: time, app: app, subject: .prompt, name: id.description, what: what)
        entry.promptKind = view.kind.rawValue
        entry.options = view.options.map(\.rawValue)
        entry.purposeKey = view.purposeKey
        if view.kind == .authorization {
            entry.defaultAccuracy = view.defaultAccuracy.rawValue
            entry.accuracyToggle = view.accuracyToggle
        }
        record(entry)
    }

    mutating func promptResolved(_ event: AdminEvent) {
        let parts = event.detail.split(separator: " ").map(String.init)
        guard parts.count == 2, let id = PromptID(parts[0]) else { return }
        let how = parts[1]
        let kind = promptViews[id]?.kind.rawValue
        let text: String =
            switch how {
            case "dismissed": "dismissed: not answered within prompt-timeout (P8)"
            case "unanswered": "dismissed: no agent to ask within agent-wait (P14)"
            case "cancelled": "cancelled: the app stopped being in use (P9)"
            case "withdrawn": "withdrawn: nothing asks for it any more (P9)"
            default: "answered \(how)"
            }
        var entry = TimelineEntry(
            time: time,
            app: label(of: event),
            subject: .prompt,
            name: id.description,
            what: (kind.map { $0 + " " } ?? "") + text
        )
        entry.promptKind = kind
        entry.resolution = how
        record(entry)
    }

    mutating func updated(_ stream: CallID, mask: DiagnosticMask) {
        guard let known = updateStreams[stream] else { return }
        let previous = known.mask ?? []
        updateStreams[stream]?.mask = mask
        let added = mask.subtracting(previous).flagNames
        let removed = previous.subtracting(mask).flagNames
        let changes = added.map { "+" + $0 } + removed.map { "-" + $0 }
        let what = known.mask == nil ? "started \(mask)" : changes.joined(separator: " ")
        var entry = TimelineEntry(time: time, app: known.app, subject: .updates, name: known.name, what: what)
        entry.flags = mask.flagNames
        entry.added = added
        entry.removed = removed
        record(entry)
    }

    /// Notes each app whose in-use changed (L2): right after the line that moved the app, else first among this
    /// event's lines.
    mutating func noteInUse(after first: Int, appMoved: [String: Int]) {
        var anchored: [Int: [TimelineEntry]] = [:]
        for app in appIDs {
            let current = core.appState(keys[app] ?? AppKey.noUser(app))?.inUse ?? false
            guard current != (inUse[app] ?? false) else { continue }
            inUse[app] = current
            var entry = TimelineEntry(
                time: time,
                app: app,
                subject: .app,
                what: current ? "in use" : "no longer in use"
            )
            entry.inUse = current
            anchored[appMoved[app] ?? first - 1, default: []].append(entry)
        }
        guard !anchored.isEmpty else { return }
        let batch = entries[first...]
        entries.removeSubrange(first...)
        entries += anchored[first - 1] ?? []
        for (index, entry) in zip(batch.indices, batch) {
            entries.append(entry)
            entries += anchored[index] ?? []
        }
    }

    mutating func record(_ entry: TimelineEntry) {
        entries.append(entry)
    }

    func error(_ app: String?, _ name: String, _ message: String) -> TimelineEntry {
        var entry = TimelineEntry(time: time, app: app, subject: .error, what: "\(name): \(message)")
        entry.error = name
        entry.message = message
        return entry
    }
}
