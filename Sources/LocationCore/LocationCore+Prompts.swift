/// Who changed a record; admins, location buttons and reloads lift prompt suppression (A3).
enum RecordChange {
    case answer
    case admin
    case locationButton
    case reload
    case lifecycle
}

// Prompts raised by sessions, their queue, answers and timeouts (SEMANTICS §5.2, §6).
extension LocationCore {
    /// Raises what the app's sessions, streams and requests call for, where §5.2 and S6–S8, P4 allow.
    ///
    /// Each rule first checks the app's state and record, which rule out a prompt on almost every call,
    /// and only then looks at the queue and the sessions.
    mutating func evaluatePrompts(_ app: Int) {
        guard servicesEnabled(for: app) else { return }
        let record = effectiveRecord(app)
        let state = apps[app].state
        // L14: an app with no window is asked while it runs, as it never comes to the foreground.
        let foreground = state == .foreground || (state == .background && apps[app].declares.backgroundOnly)
        // Most calls end here: no rule below can raise for this state and record.
        guard
            (foreground && (record.status == .notDetermined || record.status.isAuthorized))
                || (state == .background && record.status == .authorizedAlways),
            apps[app].declares.hasManifest
        else { return }
        // S6 (S2: never without the description it shows, as for an app a location button let in)
        if foreground && record.status == .notDetermined && apps[app].declares.whenInUse
            && mayRaise(.authorization, app: app)
        {
            raise(.authorization, app: app)
        }
        // S7 (P6: never for a one-time grant)
        if foreground && record.status == .authorizedWhenInUse && !record.oneTime
            && record.alwaysDecision == .undecided && mayRaise(.alwaysUpgrade, app: app)
        {
            raise(.alwaysUpgrade, app: app)
        }
        // P4: the one prompt raised in the background, for a provisional grant in use as Always.
        if apps[app].state == .background && record.status == .authorizedAlways && record.provisional
            && record.alwaysDecision == .undecided && !(apps[app].graceEnds.map { now < $0 } ?? false)
            && ownsAlwaysSession(apps[app]) && mayRaise(.alwaysUpgrade, app: app)
        {
            raise(.alwaysUpgrade, app: app)
        }
        // S8
        if foreground && record.status.isAuthorized && record.accuracyLimited {
            for key in calledPurposeKeys(apps[app]) where mayRaise(.accuracy(key), app: app) {
                raise(.accuracy(key), app: app)
            }
        }
    }

    /// Not suppressed, not already queued, and called for (§5.2, P9).
    private func mayRaise(_ key: PromptKey, app: Int) -> Bool {
        // H5: no temporary full accuracy is asked for where the administrator allows only approximate locations.
        if case .accuracy = key, !policyAllowsPrecise(app) { return false }
        return !apps[app].suppressed.contains(key) && !apps[app].queue.contains { prompts[$0]?.key == key }
            && calls(for: key, in: apps[app])
    }

    private func ownsAlwaysSession(_ app: AppRuntime) -> Bool {
        app.sessionSlots.contains {
            sessions.isLive($0) && sessions[$0].requirement == .always && sessions[$0].owner != nil
        }
    }

    private func calledPurposeKeys(_ app: AppRuntime) -> [String] {
        var keys: [String] = []
        for slot in app.sessionSlots where sessions.isLive(slot) {
            if let key = sessions[slot].purposeKey, !keys.contains(key) { keys.append(key) }
        }
        for request in app.requests {
            if case .accuracy(let key) = request.key, !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    /// Whether some session, stream or request of the app still calls for a prompt (P9).
    func calls(for key: PromptKey, in app: AppRuntime) -> Bool {
        if app.requests.contains(where: { $0.key == key }) { return true }
        switch key {
        case .authorization:
            return app.requirementCounts.whenInUse > 0 || app.requirementCounts.always > 0
                || (!app.optedOutOfImplicitSessions && !app.locationStreams.isEmpty)
        case .alwaysUpgrade:
            return app.requirementCounts.always > 0
        case .alwaysReconfirm:
            // Called for by the use already counted (P12), not by a session that could leave.
            return true
        case .accuracy(let purpose):
            return app.sessionSlots.contains { sessions.isLive($0) && sessions[$0].purposeKey == purpose }
        }
    }

    /// Whether the record still allows a pending prompt (A3: withdraw those it no longer allows).
    func stillApplies(_ key: PromptKey, record: AuthorizationRecord) -> Bool {
        guard locationServicesEnabled else { return false }
        switch key {
        case .authorization:
            return record.status == .notDetermined
        case .alwaysReconfirm:
            return record.status == .authorizedAlways && !record.provisional
        case .alwaysUpgrade:
            guard record.alwaysDecision == .undecided else { return false }
            return (record.status == .authorizedWhenInUse && !record.oneTime)
                || (record.status == .authorizedAlways && record.provisional)
        case .accuracy:
            return record.status.isAuthorized && record.accuracyLimited
        }
    }

    mutating func raise(_ key: PromptKey, app: Int) {
        let id = PromptID(epoch: epoch, number: nextPromptNumber)
        nextPromptNumber += 1
        let prompt = PromptEntry(id: id, app: app, appID: apps[app].appID, user: apps[app].user, key: key)
        prompts[id] = prompt
        apps[app].queue.append(id)
        if apps[app].queue.count == 1 {
            activate(id)
        } else {
            persist(.prompt(prompt.snapshot))
        }
        markDirty(app)
    }

    /// The head of a queue is shown: its time starts now (S9) and agents receive it.
    private mutating func activate(_ id: PromptID) {
        guard var prompt = prompts[id] else {
            preconditionFailure("a prompt becomes the head of its app's queue only while it is queued")
        }
        prompt.raisedAt = now
        let timeout = now.adding(configuration.promptTimeout)
        prompt.timeoutAt = timeout
        prompts[id] = prompt
        deadlines.insert(timeout, .promptTimeout(id))
        persist(.prompt(prompt.snapshot))
        announceHead(id)
        awaitAgentIfNone(id)
    }

    mutating func announceHead(_ id: PromptID) {
        guard let view = promptView(id) else { return }
        let key = AppKey(view.appID, user: view.user)
        for agent in agents where offers(agent, key) { emit(agent, .prompt(view)) }
        announce(.promptRaised, app: prompts[id]?.app, "\(id) \(view.kind.rawValue)")
    }

    /// Removes a prompt however it ended; agents that were shown it hear `withdrawn` (§6).
    mutating func resolve(_ id: PromptID, _ how: String) {
        guard let prompt = prompts.removeValue(forKey: id) else { return }
        let app = prompt.app
        let wasHead = apps[app].queue.first == id
        apps[app].queue.removeAll { $0 == id }
        apps[app].requests.removeAll { $0.key == prompt.key }
        persist(.promptRemoved(id))
        if wasHead {
            let key = AppKey(prompt.appID, user: prompt.user)
            for agent in agents where offers(agent, key) { emit(agent, .withdrawn(id)) }
            announce(.promptResolved, app: app, "\(id) \(how)")
            showWaitingHead(app)
        }
        markDirty(app)
    }

    /// Shows the head of a queue if it waits and may be shown now: in the foreground, or P4's upgrade (S6).
    mutating func showWaitingHead(_ app: Int) {
        guard let head = apps[app].queue.first, let prompt = prompts[head], prompt.raisedAt == nil
        else { return }
        let state = apps[app].state
        let p4 = state == .background && prompt.key == .alwaysUpgrade && effectiveRecord(app).provisional
        // P12: the re-confirmation is about background use, so it is shown in the background.
        let windowless = state == .background && apps[app].declares.backgroundOnly  // L14
        if state == .foreground || p4 || windowless || prompt.key == .alwaysReconfirm {
            activate(head)
        }
    }

    /// Withdraws the prompts that no record condition or caller supports any more (A3, P9).
    ///
    /// The tail goes first, so a head that goes too never hands its place to a prompt about to go.
    mutating func pruneprompts(_ app: Int) {
        guard !apps[app].queue.isEmpty else { return }
        let record = effectiveRecord(app)
        for id in apps[app].queue.reversed() {
            guard let key = prompts[id]?.key else { continue }
            if !stillApplies(key, record: record) || !calls(for: key, in: apps[app]) {
                resolve(id, "withdrawn")
            }
        }
    }

    mutating func cancelPrompts(of app: Int) {
        for id in apps[app].queue.reversed() { resolve(id, "cancelled") }
    }

    /// Stores a record change and follows it: withdraw, lift suppression, re-evaluate (A3, A4).
    mutating func changeRecord(_ app: Int, to wanted: AuthorizationRecord, by change: RecordChange) {
        // H5: no answer or grant goes beyond the administrator's setting for every user.
        let record = withinPolicy(app, wanted)
        switch change {
        case .admin, .locationButton, .reload:
            // Even a setting that leaves the record as it was is a person's decision: ask again (A3).
            apps[app].suppressed.removeAll()
            if record == apps[app].record { evaluatePrompts(app) }
        case .answer, .lifecycle:
            break
        }
        // P11: the button's grant is in force until the record stops being a one-time grant.
        if !record.oneTime { apps[app].buttonGrant = false }
        // P12: the count is of use under a confirmed Always grant; any other grant starts it over.
        if record.status != .authorizedAlways || record.provisional { restartAlwaysUse(app) }
        guard record != apps[app].record else { return }
        apps[app].record = record
        persist(.record(apps[app].key, record))
        markDirty(app)
        pruneprompts(app)
        evaluatePrompts(app)
    }

    // MARK: Calls

    mutating func requestAuthorization(_ call: CallID, app: Int, level: RequestLevel) {
        let manifest = apps[app].declared
        let requirement: Requirement = level == .always ? .always : .whenInUse
        if let key = manifest.missingDescription(for: requirement) {
            return fail(call, manifest.missing(key))
        }
        let status = effectiveRecord(app).status
        if status == .notDetermined {
            request(.authorization, call: call, app: app, always: level == .always)
        } else if level == .always && status == .authorizedWhenInUse {
            request(.alwaysUpgrade, call: call, app: app, always: true)
        }
        reply(call, .authorization(authorizationView(app)))
    }

    mutating func requestTemporaryFullAccuracy(_ call: CallID, app: Int, purposeKey: String) {
        let manifest = apps[app].declared
        guard manifest.temporaryUsageDescriptions[purposeKey] != nil else {
            return fail(call, .unknownPurposeKey(purposeKey: purposeKey, manifest: manifest.source))
        }
        request(.accuracy(purposeKey), call: call, app: app, always: false)
        reply(call, .authorization(authorizationView(app)))
    }

    /// P10: a request calls for its prompt until the prompt resolves or the client leaves.
    private mutating func request(_ key: PromptKey, call: CallID, app: Int, always: Bool) {
        apps[app].suppressed.remove(key)
        // A connection that asks again while its prompt waits is held once: an app's requests are bounded by its
        // clients, not by the calls they make.
        let pending = PendingRequest(client: call.client, key: key, always: always)
        if !apps[app].requests.contains(pending) { apps[app].requests.append(pending) }
        evaluatePrompts(app)
        if !apps[app].queue.contains(where: { prompts[$0]?.key == key }) {
            apps[app].requests.removeAll { $0.client == call.client && $0.key == key }
        }
    }

    /// H7: an agent is offered its own user's prompts; an administrator's that asks, every user's, or only those of
    /// the `users` it names (P14: it counts as an agent for them alone).
    mutating func startAgent(_ call: CallID, everyone: Bool, users: Set<UInt32>? = nil) {
        let scope = scope(of: call)
        if everyone && !scope.administrator { return fail(call, CallerScope.administratorsOnly("Prompts(everyone)")) }
        if let refusal = streamLimitRefusal(scope) { return fail(call, refusal) }
        agents.append(call)
        if everyone { everyoneAgents[call] = .some(users) }
        openStream(call, StreamEntry(kind: .prompts))
        if users != nil { emit(call, .agentCounted) }
        for view in pendingPromptViews where offers(call, AppKey(view.appID, user: view.user)) {
            emit(call, .prompt(view))
            agentArrived(for: view.id)
        }
    }

    mutating func startWatch(_ call: CallID) {
        if let refusal = streamLimitRefusal(scope(of: call)) { return fail(call, refusal) }
        watchers.append(call)
        openStream(call, StreamEntry(kind: .watch))
    }

    mutating func answerPrompt(_ call: CallID, id text: String, answer: PromptAnswer, accuracy: PromptAccuracy?) {
        // H7: a prompt not offered to the caller is, to it, no prompt at all.
        guard let id = PromptID(text), let prompt = prompts[id], apps[prompt.app].queue.first == id,
            prompt.raisedAt != nil, let view = promptView(id),
            scope(of: call).administrator || clients[call.client]?.uid == prompt.user
        else { return fail(call, .noSuchPrompt(id: text)) }
        guard view.options.contains(answer) else {
            return fail(call, .invalidAnswer(id: text, answer: answer.rawValue))
        }
        let app = prompt.app
        var record = apps[app].record
        switch answer {
        case .allowWhileUsing, .allowOnce:
            let chosen = view.accuracyToggle ? (accuracy ?? view.defaultAccuracy) : view.defaultAccuracy
            record.accuracy = chosen == .full ? .fullAccuracy : .reducedAccuracy
            // P1: judged at answer time, from the sessions and the requests that still call for it.
            let always =
                apps[app].effectiveRequirement == .always
                || apps[app].requests.contains { $0.key == .authorization && $0.always }
            if answer == .allowOnce {
                record.status = .authorizedWhenInUse  // P2
                record.oneTime = true
                record.provisional = false
            } else if always {
                record.status = .authorizedAlways  // P1: provisional Always, Settings shows While Using
                record.provisional = true
                record.oneTime = false
            } else {
                record.status = .authorizedWhenInUse
                record.oneTime = false
                record.provisional = false
            }
        case .deny:
            if prompt.key == .authorization {
                record.status = .denied  // P3
                record.provisional = false
                record.oneTime = false
            } else {
                apps[app].suppressed.insert(prompt.key)  // P7: declined
            }
        case .allowAlways:
            let chosen = view.accuracyToggle ? (accuracy ?? view.defaultAccuracy) : view.defaultAccuracy
            record.accuracy = chosen == .full ? .fullAccuracy : .reducedAccuracy
            record.status = .authorizedAlways  // L14
            record.provisional = false
            record.oneTime = false
            record.alwaysDecision = .granted
        case .changeToAlways:
            record.status = .authorizedAlways  // P5
            record.provisional = false
            record.alwaysDecision = .granted
        case .keepWhileUsing:
            record.status = .authorizedWhenInUse
            record.provisional = false
            record.alwaysDecision = .declined
        case .allow:
            record.temporaryFullAccuracy = true  // P7
        case .keepAlways:
            restartAlwaysUse(app)  // P13: the period starts over
        case .changeToWhileUsing:
            record.status = .authorizedWhenInUse  // P13
            record.provisional = false
            record.alwaysDecision = .declined
            restartAlwaysUse(app)
        }
        resolve(id, answer.rawValue)
        // L5: a grant for a use that has already ended (answered after the grace) ends at once.
        changeRecord(app, to: apps[app].inUse ? record : Self.endingUseGrants(record), by: .answer)
        evaluatePrompts(app)
        reply(call, .empty)
    }

    /// P8: an unanswered head is dismissed; the record stays and the prompt is not raised again until asked.
    mutating func dismiss(_ id: PromptID) {
        guard let prompt = prompts[id] else { return }
        apps[prompt.app].suppressed.insert(prompt.key)
        resolve(id, "dismissed")
        evaluatePrompts(prompt.app)
    }

    func promptView(_ id: PromptID) -> PromptView? {
        guard let prompt = prompts[id], let manifest = apps[prompt.app].manifest else { return nil }
        let reduced = manifest.defaultAccuracyReduced || !policyAllowsPrecise(prompt.app)
        let options: [PromptAnswer]
        let description: String
        switch prompt.key {
        case .authorization where manifest.backgroundOnly:
            options = [.allowAlways, .deny]  // L14
            description = manifest.alwaysAndWhenInUseUsageDescription ?? manifest.whenInUseUsageDescription ?? ""
        case .authorization:
            options = [.allowWhileUsing, .allowOnce, .deny]
            description = manifest.whenInUseUsageDescription ?? ""
        case .alwaysUpgrade:
            options = [.keepWhileUsing, .changeToAlways]
            description = manifest.alwaysAndWhenInUseUsageDescription ?? manifest.whenInUseUsageDescription ?? ""
        case .alwaysReconfirm:
            options = [.keepAlways, .changeToWhileUsing]
            description = manifest.alwaysAndWhenInUseUsageDescription ?? manifest.whenInUseUsageDescription ?? ""
        case .accuracy(let key):
            options = [.allow, .deny]
            description = manifest.temporaryUsageDescriptions[key] ?? ""
        }
        return PromptView(
            id: id,
            appID: prompt.appID,
            kind: prompt.key.kind,
            usageDescription: description,
            purposeKey: prompt.key.purposeKey,
            options: options,
            defaultAccuracy: reduced ? .reduced : .full,
            accuracyToggle: prompt.key == .authorization && !reduced,
            raisedAt: prompt.raisedAt ?? now,
            user: prompt.user,
            brokered: apps[prompt.app].clients.contains { clients[$0]?.brokered == true }
        )
    }
}
