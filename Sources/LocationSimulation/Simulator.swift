import LocationConfiguration
import LocationCore
import LocationProtocol

/// Runs a ``Scenario`` through ``LocationCore`` in virtual time, the way the daemon's shell drives it, and
/// writes down what an observer would see.
///
/// Each app process is a client connection that says `Hello` and makes its calls with fresh ``CallID``s; an
/// admin connection watches everything on an `Admin.Watch` stream and, when the scenario has an agent, receives
/// prompts on `Admin.Prompts` and answers them. Time moves only forward: before each event, the core is woken
/// at every instant it armed a timer for (`.armTimer`), so grace periods, relaunch windows and prompt timeouts
/// expire at their exact instants with no waiting. The same scenario always gives the same timeline.
package struct Simulator {
    let scenario: Scenario
    var core: LocationCore
    /// Virtual time starts here rather than at zero, like a clock some time after boot; output subtracts it.
    static let start = Instant.seconds(1000)
    /// A bound on timer wake-ups, so that a scenario can never run forever.
    static let maximumWakeUps = 100_000
    var now: Instant
    var armed: Instant?

    let admin = ClientID(1)
    var watchCall: CallID
    var agentCall: CallID?
    var nextClient: UInt64 = 2
    var nextSerial: UInt64 = 1

    /// Each running app's process: its connection and pid.
    var processes: [String: (client: ClientID, pid: Int32)] = [:]
    /// Session names: given by the scenario (`name = …`) or the wire id; and back, per app.
    var sessionNames: [SessionID: String] = [:]
    var namedSessions: [String: [String: SessionID]] = [:]
    var lastMasks: [SessionID: DiagnosticMask] = [:]
    var lastStates: [SessionID: String] = [:]
    /// When each lingering session ends, as last shown.
    var lingerDeadlines: [SessionID: Instant] = [:]
    var lingering: Set<SessionID> = []
    /// `LiveUpdates` streams by call, with their names and last masks.
    var updateStreams: [CallID: (app: String, name: String, mask: DiagnosticMask?)] = [:]
    /// What the agent was shown: each prompt's view, and each app's prompt on screen.
    var promptViews: [PromptID: PromptView] = [:]
    var shownPrompts: [String: PromptID] = [:]
    var inUse: [String: Bool] = [:]
    /// Every app the scenario names, by manifest or in an event (allow-unknown-apps), and each user's app its events
    /// name (H1), by the label the timeline shows, in order.
    let appIDs: [String]
    /// The user's app each label names: `com.ex.maps` is the app of no user, `com.ex.maps (alice)` Alice's.
    let keys: [String: AppKey]
    /// The uid the simulation gives each user an event names, from 1000 in order of first appearance, and back.
    let uids: [String: UInt32]
    let userNames: [UInt32: String]
    /// The settings connection of each user who turns their own switch (H6).
    var people: [UInt32: ClientID] = [:]

    /// The scenario event being run, for naming sessions and telling why one ended.
    var cause: Cause = .setup
    /// What the core returned for the last event.
    var lastActions: [Action] = []
    var entries: [TimelineEntry] = []

    /// Why the core is being called, which is how the timeline explains a session's end.
    enum Cause {
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

    init(_ scenario: Scenario) {
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
        for manifest in scenario.manifests { keys[manifest.appID] = AppKey.noUser(manifest.appID) }
        for event in scenario.events {
            guard let app = event.app else { continue }
            let key = AppKey(app, user: event.user.flatMap { uids[$0] })
            keys[Self.label(key, userNames)] = key
        }
        self.keys = keys
        appIDs = keys.keys.sorted { keys[$0]! < keys[$1]! }
        now = Self.start
    }

    mutating func run() throws(ConfigurationIssue) -> [TimelineEntry] {
        send(.connected(admin, pid: 1, uid: nil))
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
    mutating func wake(until end: Instant?) {
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

    mutating func perform(_ event: ScenarioEvent) throws(ConfigurationIssue) {
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
                    error(app, WireErrorName.noSuchPrompt.name, "no prompt of \(app) is showing: nothing to answer now")
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
    mutating func performLifecycle(_ event: ScenarioEvent, app: String) throws(ConfigurationIssue) {
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
    mutating func performAppCall(_ event: ScenarioEvent, app: String) throws(ConfigurationIssue) {
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
    mutating func start(_ app: String, state: RunningState?) -> [SessionView] {
        let client = ClientID(nextClient)
        nextClient += 1
        let pid = Int32(100 + client.raw)
        let key = keys[app] ?? AppKey.noUser(app)
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
    func need(
        _ app: String,
        _ event: ScenarioEvent
    ) throws(ConfigurationIssue) -> (client: ClientID, pid: Int32) {
        guard let process = processes[app] else {
            throw issue(event, "\(app) is not running at \(Self.seconds(event.at)) s: launch or relaunch it first")
        }
        return process
    }

    func issue(_ event: ScenarioEvent, _ message: String) -> ConfigurationIssue {
        ConfigurationIssue(file: scenario.file, line: event.line, key: "events[\(event.index)]", message: message)
    }

    /// The connection a user turns their own switch on (H6); the administrator's for the machine's.
    mutating func settings(of uid: UInt32?) -> ClientID {
        guard let uid else { return admin }
        if let client = people[uid] { return client }
        let client = ClientID(nextClient)
        nextClient += 1
        send(.connected(client, pid: Int32(100 + client.raw), uid: uid, administrator: false))
        people[uid] = client
        return client
    }

    /// How the timeline names a user's app.
    func label(_ key: AppKey) -> String { Self.label(key, userNames) }

    static func label(_ key: AppKey, _ names: [UInt32: String]) -> String {
        guard let user = key.user else { return key.appID }
        return "\(key.appID) (\(names[user] ?? "uid \(user)"))"
    }

    /// The label of the app an event of the Watch stream is about.
    func label(of event: AdminEvent) -> String? {
        event.appID.map { label(AppKey($0, user: event.user)) }
    }

    // MARK: Driving the core

    @discardableResult
    mutating func appCall(_ app: String, _ method: Call) -> CallID {
        guard let process = processes[app] else {
            preconditionFailure("an app is called only while its process runs: need(_:_:) or its Hello said so")
        }
        return call(process.client, method)
    }

    /// Makes a call with a fresh serial and returns its id; ``lastActions`` holds what the core answered.
    @discardableResult
    mutating func call(_ client: ClientID, _ method: Call) -> CallID {
        let id = CallID(client: client, serial: nextSerial)
        nextSerial += 1
        send(.call(id, method))
        return id
    }

    /// Hands one event to the core at the current virtual time and writes down what it reports.
    mutating func send(_ event: Event) {
        lastActions = core.handle(event, at: now)
        observe(lastActions)
    }

    var time: Double { seconds(now) }

    /// Seconds from the start of the scenario, to the millisecond.
    func seconds(_ instant: Instant) -> Double {
        Double(instant.since(Self.start).nanoseconds / 1_000_000) / 1000
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

    func describe(_ action: ScenarioAction) -> String {
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
    func strippingBrackets() -> String {
        var text = self
        if text.first == "[" { text = text.dropFirst() }
        if text.last == "]" { text = text.dropLast() }
        return String(text)
    }
}
