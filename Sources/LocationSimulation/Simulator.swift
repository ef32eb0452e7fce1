import LocationConfiguration
import LocationCore

/// Runs a ``Scenario`` through ``LocationCore`` in virtual time, the way the daemon's shell drives it, and
/// writes down what an observer would see.
///
/// Each app process is a client connection that says `Hello` and makes its calls with fresh ``CallID``s; an
/// admin connection watches everything on an `Admin.Watch` stream and, when the scenario has an agent, receives
/// prompts on `Admin.Prompts` and answers them. Time moves only forward: before each event, the core is woken
/// at every instant it armed a timer for (`.armTimer`), so grace periods, relaunch windows and prompt timeouts
/// expire at their exact instants with no waiting. The same scenario always gives the same timeline.
package struct Simulator {
    private let scenario: Scenario
    private var core: LocationCore
    /// Virtual time starts here rather than at zero, like a clock some time after boot; output subtracts it.
    private static let start = Instant.seconds(1000)
    /// A bound on timer wake-ups, so that a scenario can never run forever.
    private static let maximumWakeUps = 100_000
    private var now: Instant
    private var armed: Instant?

    private let admin = ClientID(1)
    private var watchCall: CallID
    private var agentCall: CallID?
    private var nextClient: UInt64 = 2
    private var nextSerial: UInt64 = 1

    /// Each running app's process: its connection and pid.
    private var processes: [String: (client: ClientID, pid: Int32)] = [:]
    /// Session names: given by the scenario (`name = …`) or the wire id; and back, per app.
    private var sessionNames: [SessionID: String] = [:]
    private var namedSessions: [String: [String: SessionID]] = [:]
    private var lastMasks: [SessionID: DiagnosticMask] = [:]
    private var lastStates: [SessionID: String] = [:]
    /// When each lingering session ends, as last shown.
    private var lingerDeadlines: [SessionID: Instant] = [:]
    private var lingering: Set<SessionID> = []
    /// `LiveUpdates` streams by call, with their names and last masks.
    private var updateStreams: [CallID: (app: String, name: String, mask: DiagnosticMask?)] = [:]
    /// What the agent was shown: each prompt's view, and each app's prompt on screen.
    private var promptViews: [PromptID: PromptView] = [:]
    private var shownPrompts: [String: PromptID] = [:]
    private var inUse: [String: Bool] = [:]
    /// Every app the scenario names, by manifest or in an event (allow-unknown-apps), and each user's app its events
    /// name (H1), by the label the timeline shows, in order.
    private let appIDs: [String]
    /// The user's app each label names: `com.ex.maps` is the app of no user, `com.ex.maps (alice)` Alice's.
    private let keys: [String: AppKey]
    /// The uid the simulation gives each user an event names, from 1000 in order of first appearance, and back.
    private let uids: [String: UInt32]
    private let userNames: [UInt32: String]
    /// The settings connection of each user who turns their own switch (H6).
    private var people: [UInt32: ClientID] = [:]

    /// The scenario event being run, for naming sessions and telling why one ended.
    private var cause: Cause = .setup
    /// What the core returned for the last event.
    private var lastActions: [Action] = []
    private var entries: [TimelineEntry] = []

    /// Why the core is being called, which is how the timeline explains a session's end.
    private enum Cause {
        case setup
        case timer
        case event(ScenarioEvent)
    }

    /// Runs `scenario` and returns its timeline.
    /// - Throws: a ``ConfigurationIssue`` naming the event that cannot run (say, an app's call before it was
    ///   launched), with its line.
    package static func run(_ scenario: Scenario) throws(ConfigurationIssue) -> [TimelineEntry] {
        var simulator = Simulator(scenario)
        return try simulator.run()
    }

    private init(_ scenario: Scenario) {
        self.scenario = scenario
        core = LocationCore(configuration: scenario.configuration, manifests: scenario.manifests, epoch: 1)
        watchCall = CallID(client: admin, serial: 0)
        var uids: [String: UInt32] = [:]
        for user in scenario.events.compactMap(\.user) where uids[user] == nil {
            uids[user] = 1000 + UInt32(uids.count)
        }
        self.uids = uids
        userNames = Dictionary(uniqueKeysWithValues: uids.map { ($1, $0) })
        var keys: [String: AppKey] = [:]
        for manifest in scenario.manifests { keys[manifest.appID] = AppKey(manifest.appID) }
        for event in scenario.events {
            guard let app = event.app else { continue }
            let key = AppKey(app, user: event.user.flatMap { uids[$0] })
            keys[Self.label(key, userNames)] = key
        }
        self.keys = keys
        appIDs = keys.keys.sorted { keys[$0]! < keys[$1]! }
        now = Self.start
    }

    private mutating func run() throws(ConfigurationIssue) -> [TimelineEntry] {
        send(.connected(admin, pid: 1))
        watchCall = call(admin, .watch)
        // The person's agent: every user's prompts, each user being at this one screen in turn (H7).
        if scenario.agent { agentCall = call(admin, .promptsOfEveryone) }
        for event in scenario.events {
            wake(until: Self.start.adding(.seconds(event.at)))
            try perform(event)
        }
        wake(until: scenario.until.map { Self.start.adding(.seconds($0)) })
        return entries
    }

    /// Delivers every timer the core armed at or before `end` (all of them when `end` is `nil`), each at its instant.
    private mutating func wake(until end: Instant?) {
        var wakeUps = 0
        while let instant = armed, end.map({ instant <= $0 }) ?? true, wakeUps < Self.maximumWakeUps {
            wakeUps += 1
            now = max(now, instant)
            cause = .timer
            send(.deadlineReached)
            // The core re-arms only for a later instant; if it did not, the deadline could never pass.
            if let next = armed, next <= instant { break }
        }
        if let end { now = max(now, end) }
    }

    // MARK: Events

    private mutating func perform(_ event: ScenarioEvent) throws(ConfigurationIssue) {
        cause = .event(event)
        let uid = event.user.flatMap { uids[$0] }
        let app = event.app.map { label(AppKey($0, user: uid)) } ?? ""
        // A user's own switch (H6) names its user; an app's event names the user's app by its label.
        let what = describe(event.action) + (event.app == nil ? event.user.map { " (\($0))" } ?? "" : "")
        record(TimelineEntry(time: time, app: event.app == nil ? nil : app, subject: .event, what: what))
        entries[entries.count - 1].event = Self.eventName(event.action)
        switch event.action {
        case .launch, .relaunch, .terminate, .goodbye:
            try performLifecycle(event, app: app)
        case .answer(let answer, let accuracy):
            guard let id = shownPrompts[app] else {
                record(
                    error(app, "io.locd.Admin.NoSuchPrompt", "no prompt of \(app) is showing: nothing to answer now")
                )
                return
            }
            call(admin, .answerPrompt(id: id.description, answer: answer, accuracy: accuracy))
        case .servicesOff: call(settings(of: uid), .setLocationServices(false))
        case .servicesOn: call(settings(of: uid), .setLocationServices(true))
        case .setAuthorization(let setting, let precise):
            call(admin, .setAuthorization(appID: event.app ?? "", setting: setting, precise: precise, user: uid))
        case .locationButton: call(admin, .locationButton(appID: event.app ?? "", user: uid))
        case .fix(let latitude, let longitude, let accuracy):
            let fix = Fix(
                latitude: latitude,
                longitude: longitude,
                horizontalAccuracy: accuracy,
                timestamp: 1_700_000_000 + event.at
            )
            send(.fix(fix))
        case .fixLost: send(.fixLost)
        default:
            try performAppCall(event, app: app)
        }
    }

    /// An app's process starts, or ends.
    private mutating func performLifecycle(_ event: ScenarioEvent, app: String) throws(ConfigurationIssue) {
        switch event.action {
        case .launch(let state):
            guard processes[app] == nil else {
                throw issue(event, "\(app) is already running: terminate it first, or use foreground")
            }
            start(app, state: state)
        case .relaunch(let state, let resume):
            guard processes[app] == nil else {
                throw issue(event, "\(app) is still running: terminate it before relaunching it")
            }
            let lingeringSessions = start(app, state: state)
            if resume {
                for session in lingeringSessions { appCall(app, .resumeSession(session.id.description)) }
            }
        case .terminate:
            let process = try need(app, event)
            processes[app] = nil
            send(.disconnected(process.client))
        case .goodbye:
            let process = try need(app, event)
            appCall(app, .goodbye)
            processes[app] = nil
            send(.disconnected(process.client))
        default:
            preconditionFailure("perform hands performLifecycle only launch, relaunch, terminate and goodbye")
        }
    }

    /// A call of the app's running process.
    private mutating func performAppCall(_ event: ScenarioEvent, app: String) throws(ConfigurationIssue) {
        let process = try need(app, event)
        switch event.action {
        case .createSession(let requirement, let purposeKey, _):
            appCall(app, .createSession(requirement, purposeKey: purposeKey))
        case .invalidateSession(let name):
            guard let id = namedSessions[app]?[name] else {
                throw issue(event, "no session of \(app) is named \(name): name it in its create-session")
            }
            appCall(app, .invalidateSession(id.description))
        case .background: appCall(app, .setAppState(.background))
        case .foreground: appCall(app, .setAppState(.foreground))
        case .requestAuthorization(let level): appCall(app, .requestAuthorization(level))
        case .requestTemporaryFullAccuracy(let purposeKey):
            appCall(app, .requestTemporaryFullAccuracy(purposeKey: purposeKey))
        case .beginBackgroundActivity: appCall(app, .beginBackgroundActivity)
        case .liveUpdates(let name):
            let stream = CallID(client: process.client, serial: nextSerial)
            updateStreams[stream] = (app, name ?? "updates \(stream.serial)", nil)
            appCall(app, .liveUpdates(.standard))
        default:
            preconditionFailure("perform hands performAppCall only the calls of an app's process")
        }
    }

    /// A new process of `app` connects and says `Hello`; returns the lingering sessions it may resume.
    @discardableResult
    private mutating func start(_ app: String, state: RunningState?) -> [SessionView] {
        let client = ClientID(nextClient)
        nextClient += 1
        let pid = Int32(100 + client.raw)
        let key = keys[app] ?? AppKey(app)
        // A user's process is that user's, who may not administer; the app of no user is the one person's (H1).
        send(.connected(client, pid: pid, uid: key.user, administrator: key.user == nil))
        processes[app] = (client, pid)
        call(client, .hello(appID: key.appID, state: state))
        for action in lastActions {
            if case .reply(_, .hello(_, let lingeringSessions)) = action {
                return lingeringSessions.sorted { $0.id < $1.id }
            }
        }
        // Hello failed (its error is on the timeline): the process exits.
        processes[app] = nil
        send(.disconnected(client))
        return []
    }

    /// The app's running process, which the event needs.
    @discardableResult
    private func need(
        _ app: String,
        _ event: ScenarioEvent
    ) throws(ConfigurationIssue) -> (client: ClientID, pid: Int32) {
        guard let process = processes[app] else {
            throw issue(event, "\(app) is not running at \(Self.seconds(event.at)) s: launch or relaunch it first")
        }
        return process
    }

    private func issue(_ event: ScenarioEvent, _ message: String) -> ConfigurationIssue {
        ConfigurationIssue(file: scenario.file, line: event.line, key: "events[\(event.index)]", message: message)
    }

    /// The connection a user turns their own switch on (H6); the administrator's for the machine's.
    private mutating func settings(of uid: UInt32?) -> ClientID {
        guard let uid else { return admin }
        if let client = people[uid] { return client }
        let client = ClientID(nextClient)
        nextClient += 1
        send(.connected(client, pid: Int32(100 + client.raw), uid: uid, administrator: false))
        people[uid] = client
        return client
    }

    /// How the timeline names a user's app.
    private func label(_ key: AppKey) -> String { Self.label(key, userNames) }

    private static func label(_ key: AppKey, _ names: [UInt32: String]) -> String {
        guard let user = key.user else { return key.appID }
        return "\(key.appID) (\(names[user] ?? "uid \(user)"))"
    }

    /// The label of the app an event of the Watch stream is about.
    private func label(of event: AdminEvent) -> String? {
        event.appID.map { label(AppKey($0, user: event.user)) }
    }

    // MARK: Driving the core

    @discardableResult
    private mutating func appCall(_ app: String, _ method: Call) -> CallID {
        guard let process = processes[app] else {
            preconditionFailure("an app is called only while its process runs: need(_:_:) or its Hello said so")
        }
        return call(process.client, method)
    }

    /// Makes a call with a fresh serial and returns its id; ``lastActions`` holds what the core answered.
    @discardableResult
    private mutating func call(_ client: ClientID, _ method: Call) -> CallID {
        let id = CallID(client: client, serial: nextSerial)
        nextSerial += 1
        send(.call(id, method))
        return id
    }

    /// Hands one event to the core at the current virtual time and writes down what it reports.
    private mutating func send(_ event: Event) {
        lastActions = core.handle(event, at: now)
        observe(lastActions)
    }

    private var time: Double { seconds(now) }

    /// Seconds from the start of the scenario, to the millisecond.
    private func seconds(_ instant: Instant) -> Double {
        Double(instant.since(Self.start).nanoseconds / 1_000_000) / 1000
    }

    // MARK: Observing

    private mutating func observe(_ actions: [Action]) {
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
                record(error(app, failure.varlinkName, failure.message))
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

    private var isSetup: Bool { if case .setup = cause { true } else { false } }

    private var eventApp: String? { if case .event(let event) = cause { event.app } else { nil } }

    /// Names a session the scenario named in the call that created it, or by its wire id.
    private mutating func bind(_ id: SessionID, app: String) {
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

    private mutating func watched(_ event: AdminEvent) {
        switch event.kind {
        case .authorizationChanged:
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
            var entry = TimelineEntry(
                time: time,
                app: nil,
                subject: .services,
                what: "location services \(event.detail)"
            )
            entry.state = event.detail
            record(entry)
        }
    }

    /// `Admin.Watch` reports `lingering`, `resumed`, or the new state and mask as `limited [flag,flag]`.
    private mutating func sessionChanged(_ id: SessionID, app: String, detail: String) {
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
    private func endReason(_ id: SessionID) -> String {
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

    private mutating func promptRaised(_ event: AdminEvent) {
        guard let app = label(of: event), let idText = event.detail.split(separator: " ").first,
            let id = PromptID(String(idText))
        else { return }
        let view = promptViews[id] ?? core.queuedPrompts(of: keys[app] ?? AppKey(app)).first { $0.id == id }
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

    private mutating func promptResolved(_ event: AdminEvent) {
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

    private mutating func updated(_ stream: CallID, mask: DiagnosticMask) {
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
    private mutating func noteInUse(after first: Int, appMoved: [String: Int]) {
        var anchored: [Int: [TimelineEntry]] = [:]
        for app in appIDs {
            let current = core.appState(keys[app] ?? AppKey(app))?.inUse ?? false
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

    private mutating func record(_ entry: TimelineEntry) {
        entries.append(entry)
    }

    private func error(_ app: String?, _ name: String, _ message: String) -> TimelineEntry {
        var entry = TimelineEntry(time: time, app: app, subject: .error, what: "\(name): \(message)")
        entry.error = name
        entry.message = message
        return entry
    }

    // MARK: Describing events

    static func eventName(_ action: ScenarioAction) -> String {
        switch action {
        case .launch: "launch"
        case .createSession: "create-session"
        case .invalidateSession: "invalidate-session"
        case .answer: "answer"
        case .background: "background"
        case .foreground: "foreground"
        case .terminate: "terminate"
        case .relaunch: "relaunch"
        case .servicesOff: "services-off"
        case .servicesOn: "services-on"
        case .setAuthorization: "set-authorization"
        case .locationButton: "location-button"
        case .requestAuthorization: "request-authorization"
        case .requestTemporaryFullAccuracy: "request-temporary-full-accuracy"
        case .beginBackgroundActivity: "begin-background-activity"
        case .goodbye: "goodbye"
        case .liveUpdates: "live-updates"
        case .fix: "fix"
        case .fixLost: "fix-lost"
        }
    }

    private func describe(_ action: ScenarioAction) -> String {
        let name = Self.eventName(action)
        switch action {
        case .launch(let state?): return "\(name) (\(state.rawValue))"
        case .createSession(let requirement, let key, let session):
            return "\(name) \(requirement.rawValue)" + (key.map { " for \($0)" } ?? "")
                + (session.map { " as \($0)" } ?? "")
        case .invalidateSession(let session): return "\(name) \(session)"
        case .answer(let answer, let accuracy):
            return "\(name) \(answer.rawValue)" + (accuracy.map { " (\($0.rawValue) accuracy)" } ?? "")
        case .relaunch(let state, let resume):
            return name + (state.map { " (\($0.rawValue))" } ?? "") + (resume ? "" : " without resuming its sessions")
        case .setAuthorization(let setting, let precise):
            return name + (setting.map { " \($0.rawValue)" } ?? "")
                + (precise.map { $0 ? " precise" : " approximate" } ?? "")
        case .requestAuthorization(let level): return "\(name) \(level.rawValue)"
        case .requestTemporaryFullAccuracy(let key): return "\(name) \(key)"
        case .beginBackgroundActivity(let session?), .liveUpdates(let session?): return "\(name) as \(session)"
        case .fix(let latitude, let longitude, let accuracy):
            return "\(name) \(latitude), \(longitude) ±\(Self.seconds(accuracy)) m"
        default: return name
        }
    }

    /// A number as the table prints it: no trailing `.0` noise beyond one decimal.
    package static func seconds(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        let whole = Int(tenths / 10)
        let fraction = Int(abs(tenths.truncatingRemainder(dividingBy: 10)))
        return "\(value < 0 && whole == 0 ? "-" : "")\(whole).\(fraction)"
    }
}

extension Substring {
    /// `[a,b]` without its brackets: the list inside a mask's description.
    fileprivate func strippingBrackets() -> String {
        var text = self
        if text.first == "[" { text = text.dropFirst() }
        if text.last == "]" { text = text.dropLast() }
        return String(text)
    }
}
