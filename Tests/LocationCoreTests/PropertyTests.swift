import LocationTestSupport
import LocationWireErrors
import PropertyBased
import Testing

@testable import LocationCore

/// Random event sequences against the rules that must hold after every event.
///
/// Each test drives the same kind of scenario: a few apps of ``Harness/defaultManifests`` launch in
/// the foreground or background, create and end sessions, move between states, are answered and
/// administered, and time jumps by up to 200 s. After each step the test checks one rule; a failure
/// is shrunk to a short sequence and reported with the trace of what the steps did.
@Suite("Properties")
struct PropertyTests {
    /// Runs per test: each is a fresh core and up to ``maxSteps`` steps.
    static let runs = 200
    static let maxSteps = 60

    /// D12's limiting bits 0, 1, 2, 4, 11, 12 and 13, spelled out so that a wrong constant in the core fails too.
    static let limiting: DiagnosticMask = [
        .authorizationDenied, .authorizationDeniedGlobally, .authorizationRestricted, .insufficientlyInUse,
        .fullAccuracyDenied, .serviceSessionRequired, .authorizationRequestInProgress,
    ]

    @Test("D12: no session is active while its mask has a limiting bit")
    func activeMeansUnlimited() async {
        #expect(DiagnosticMask.limitingSession == Self.limiting)
        await check { scenario in
            var problems: [String] = []
            for id in scenario.core.sessionIDs {
                let view = scenario.core.sessionView(id)!
                let stored = scenario.core.sessions[id]!
                let authorized = scenario.core.authorizationView(AppKey.noUser(view.appID)).status.isAuthorized
                if view.state == .active && !view.diagnostic.isDisjoint(with: Self.limiting) {
                    problems.append("\(id) is active with \(view.diagnostic)")
                }
                if view.state == .active && !authorized && view.requirement != .noAuthorization {
                    problems.append("\(id) is active, requirement \(view.requirement.rawValue), not authorized")
                }
                if stored.state == .active && !stored.mask.isDisjoint(with: Self.limiting) {
                    problems.append("\(id) was reported active with \(stored.mask)")
                }
            }
            return problems
        }
    }

    @Test("S9: at most one pending prompt per app and kind, and agents see one head per app")
    func onePromptPerKind() async {
        await check { scenario in
            var problems: [String] = []
            for appID in scenario.apps {
                let queue = scenario.core.queuedPrompts(of: AppKey.noUser(appID))
                let keys = queue.map { "\($0.kind.rawValue)/\($0.purposeKey ?? "-")" }
                if Set(keys).count != keys.count { problems.append("\(appID) queues \(keys)") }
                let shown = scenario.shown.filter { $0.value == appID }.keys.sorted()
                if shown.count > 1 { problems.append("agents see \(shown) for \(appID)") }
                let head = queue.first?.id
                if shown.contains(where: { $0 != head }) {
                    problems.append(
                        "agents see \(shown) for \(appID), whose head is \(head.map(\.description) ?? "none")"
                    )
                }
                guard let head else { continue }
                let waits = scenario.core.prompts[head]?.raisedAt == nil
                if !waits && shown != [head] {
                    problems.append("\(appID)'s head \(head) is shown, agents see \(shown)")
                }
                if waits && scenario.core.appState(AppKey.noUser(appID))?.state == .foreground {
                    problems.append("\(appID) is in the foreground and its head \(head) is not shown")
                }
            }
            return problems
        }
    }

    @Test("S6: no prompt reaches agents for an app outside the foreground, except P4's upgrade")
    func promptsOnlyInForeground() async {
        await check { scenario in
            scenario.raisedThisStep.compactMap { raised in
                let (prompt, state, provisional) = (raised.prompt, raised.state, raised.provisional)
                if state == .foreground { return nil }
                let p4 = prompt.kind == .alwaysUpgrade && state == .background && provisional
                return p4 ? nil : "\(prompt.kind.rawValue) prompt \(prompt.id) raised while \(state.rawValue)"
            }
        }
    }

    @Test("L5: a one-time or temporary full-accuracy grant never outlives its app's use")
    func grantsEndWithUse() async {
        await check { scenario in
            scenario.apps.compactMap { appID in
                let record = scenario.core.storedRecord(AppKey.noUser(appID))!
                guard scenario.core.appState(AppKey.noUser(appID))?.inUse == false else { return nil }
                if record.oneTime { return "\(appID) is not in use and keeps a one-time grant" }
                if record.temporaryFullAccuracy { return "\(appID) is not in use and keeps temporary full accuracy" }
                return nil
            }
        }
    }

    @Test("L2: the in-use flag the core acts on is L2's judgement at the current instant")
    func inUseIsCurrent() async {
        await check { scenario in
            scenario.core.apps.values.compactMap { app in
                let judged = scenario.core.computeInUse(app)
                return judged == app.inUse ? nil : "\(app.appID) has inUse \(app.inUse), L2 says \(judged)"
            }
        }
    }

    /// U1's withholding bits 0, 1, 2, 3, 4, 5, 12 and 13, spelled out like ``limiting``.
    static let withholding: DiagnosticMask = [
        .authorizationDenied, .authorizationDeniedGlobally, .authorizationRestricted, .stationary,
        .insufficientlyInUse, .locationUnavailable, .serviceSessionRequired, .authorizationRequestInProgress,
    ]

    @Test("U1, U2: an update carries a location iff U1 allows one, and a reduced one is its cell's centre")
    func locationsIffAllowed() async {
        #expect(DiagnosticMask.withholdingLocation == Self.withholding)
        await check { scenario in
            scenario.updatesThisStep.compactMap { update in
                guard let appID = scenario.streamConnections.first(where: { $0.client == update.stream.client })?.appID
                else { return nil }
                let authorized = scenario.core.authorizationView(AppKey.noUser(appID)).status.isAuthorized
                let allowed =
                    authorized && scenario.core.providerReportsFix && update.mask.isDisjoint(with: Self.withholding)
                if allowed != (update.location != nil) {
                    return
                        "\(update.stream) of \(appID) got \(update.mask) with location \(String(describing: update.location))"
                }
                guard let location = update.location, update.mask.contains(.accuracyLimited) else { return nil }
                let cell = GridCell(latitude: location.latitude, longitude: location.longitude)
                if location.horizontalAccuracy != 5000 || location.latitude != cell.centreLatitude
                    || location.longitude != cell.centreLongitude || location.speed != nil || location.altitude != nil
                {
                    return "\(update.stream) of \(appID) got a reduced location that is not a cell centre: \(location)"
                }
                return nil
            }
        }
    }

    @Test("D11: a diagnostics stream never sends the same mask twice in a row")
    func diagnosticsNeverRepeat() async {
        await check { scenario in
            scenario.diagnostics.compactMap { stream, messages in
                for (previous, next) in zip(messages, messages.dropFirst()) where !next.ended {
                    if previous.mask == next.mask { return "\(stream) repeated \(next.mask): \(messages)" }
                }
                return nil
            }
        }
    }

    @Test("D11: every open stream's last mask is its current mask after every event")
    func masksAreCurrent() async {
        await check { scenario in
            let core = scenario.core
            let sessions: [String] = scenario.diagnostics.compactMap { stream, messages in
                guard let session = scenario.diagnosticStreams[stream], core.streams[stream] != nil,
                    let last = messages.last, !last.ended, let view = core.sessionView(session)
                else { return nil }
                return last.mask == view.diagnostic
                    ? nil : "\(stream) last sent \(last.mask), \(session) is \(view.diagnostic)"
            }
            let updates: [String] = scenario.updates.compactMap { stream, last in
                guard let entry = core.streams[stream] else { return nil }
                let appID = scenario.streamConnections.first { $0.client == stream.client }!.appID
                let mask = core.streamMask(entry.kind, context: core.context(of: core.apps[appID]!))
                return last == mask ? nil : "location stream \(stream) last sent \(last), its mask is \(mask)"
            }
            return sessions + updates
        }
    }

    @Test("L4: a session created leaves no lingering session of another process that it covers")
    func claimingCovers() async {
        await check { scenario in
            guard let id = scenario.claimed, let claimed = scenario.core.sessions[id] else { return [] }
            return scenario.core.sessions.values.compactMap { other in
                guard other.appID == claimed.appID, other.owner == nil, other.ownerPID != claimed.ownerPID,
                    (other.kind == .backgroundActivity) == (claimed.kind == .backgroundActivity),
                    other.requirement <= claimed.requirement,
                    other.purposeKey == nil || other.purposeKey == claimed.purposeKey
                else { return nil }
                return "\(id) covers \(other.id), which still lingers"
            }
        }
    }

    @Test("L6: the armed timer is always the earliest deadline that still stands, and none is overdue")
    func timerIsEarliestDeadline() async {
        await check { scenario in
            let earliest = scenario.earliestDeadline
            var problems: [String] = []
            if scenario.armed != earliest {
                problems.append("armed \(String(describing: scenario.armed)), earliest \(String(describing: earliest))")
            }
            if let earliest, earliest <= scenario.h.now { problems.append("deadline \(earliest) is overdue") }
            return problems
        }
    }

    @Test("L3: once every deadline has passed, no session lingers, no app is terminated, no prompt is overdue (P8)")
    func nothingLingersForever() async {
        await propertyCheck(count: Self.runs, input: Scenario.scripts) { script in
            var scenario = Scenario(apps: script.apps)
            for step in script.steps { scenario.run(step) }
            scenario.advance(10_000)
            var problems: [String] = []
            for id in scenario.core.sessionIDs where scenario.core.sessionView(id)!.state == .lingering {
                problems.append("\(id) still lingers")
            }
            for appID in scenario.apps where scenario.core.appState(AppKey.noUser(appID))!.state == .terminated {
                problems.append("\(appID) is still terminated")
            }
            for prompt in scenario.core.prompts.values {
                if let timeout = prompt.timeoutAt, timeout <= scenario.h.now {
                    problems.append("prompt \(prompt.id) timed out at \(timeout) and is pending")
                }
            }
            #expect(problems.isEmpty, "\(problems)\n\(scenario.traceText)")
        }
    }

    @Test("L6: the same events give the same actions")
    func deterministic() async {
        await propertyCheck(count: Self.runs, input: Scenario.scripts) { script in
            var first = Scenario(apps: script.apps)
            var second = Scenario(apps: script.apps)
            for step in script.steps {
                first.run(step)
                second.run(step)
            }
            first.advance(10_000)
            second.advance(10_000)
            let log = (first.h.log, second.h.log)
            let differ = zip(log.0, log.1).enumerated().first { !same($0.element.0, $0.element.1) }?.offset
            #expect(
                log.0.count == log.1.count && differ == nil,
                "first difference at action \(differ ?? min(log.0.count, log.1.count))\n\(first.traceText)"
            )
        }
    }

    @Test("L6: a late timer ends with the same records and sessions as a punctual one")
    func lateTimerIsHarmless() async {
        await propertyCheck(count: Self.runs, input: Scenario.scripts) { script in
            var late = Scenario(apps: script.apps)
            var punctual = Scenario(apps: script.apps)
            punctual.punctual = true
            for (index, step) in script.steps.enumerated() {
                late.run(step)
                punctual.run(step)
                let (a, b) = (late.outcome, punctual.outcome)
                guard a == b else {
                    Issue.record(
                        """
                        after step \(index): late \(a.difference(from: b)), punctual \(b.difference(from: a))
                        \(late.traceText)
                        """
                    )
                    return
                }
            }
        }
    }

    // MARK: The cases the properties found, as examples

    @Test("S6: a queued prompt whose turn comes in the background waits for the foreground")
    func queuedPromptWaitsForForeground() {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = h.create(app, .whenInUse)
        h.answer("com.ex.maps", .allowWhileUsing, accuracy: .reduced)
        _ = h.create(app, .always)
        _ = h.create(app, .whenInUse, purposeKey: "Navigation")
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade, .temporaryFullAccuracy])
        let agent = h.call(h.connect(), .prompts)
        h.call(app, .setAppState(.background))
        let upgrade = h.prompts("com.ex.maps")[0].id

        h.answer("com.ex.maps", .keepWhileUsing)
        #expect(h.messages(to: agent) == [.withdrawn(upgrade)])
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.temporaryFullAccuracy])
        #expect(h.core.pendingPromptViews.isEmpty)

        h.advance(30)
        h.call(app, .setAppState(.foreground))
        let shown = h.prompts("com.ex.maps")[0]
        #expect(h.messages(to: agent) == [.prompt(shown)])
        #expect(shown.raisedAt == h.now)
    }

    @Test("L5: Allow Once answered after the app's use ended grants nothing")
    func allowOnceAfterUse() {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let session = h.create(app, .whenInUse)!
        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(!h.inUse("com.ex.maps"))

        h.answer("com.ex.maps", .allowOnce)
        #expect(h.core.storedRecord(AppKey.noUser("com.ex.maps")) == AuthorizationRecord())
        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.mask(session) == [.insufficientlyInUse])
    }

    @Test("L6: a deadline handled late starts what it starts at its own instant")
    func lateDeadlineKeepsItsInstant() {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = h.create(app, .always)
        h.answer("com.ex.maps", .allowWhileUsing)
        #expect(h.authorization("com.ex.maps").provisional)
        h.call(app, .setAppState(.background))
        let graceEnds = h.now.adding(.seconds(10))

        h.advance(60)
        let upgrade = h.prompts("com.ex.maps")
        #expect(upgrade.map(\.kind) == [.alwaysUpgrade])
        #expect(upgrade.map(\.raisedAt) == [graceEnds])
        #expect(h.core.prompts[upgrade[0].id]?.timeoutAt == graceEnds.adding(.seconds(120)))
    }

    /// Runs random scenarios and records the first step after which `invariant` reports a problem.
    private func check(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ invariant: (inout Scenario) -> [String]
    ) async {
        await propertyCheck(
            count: Self.runs,
            input: Scenario.scripts,
            perform: { script in
                var scenario = Scenario(apps: script.apps)
                for step in script.steps {
                    scenario.run(step)
                    let problems = invariant(&scenario)
                    guard problems.isEmpty else {
                        Issue.record(
                            "\(problems.joined(separator: "; "))\n\(scenario.traceText)",
                            sourceLocation: sourceLocation
                        )
                        return
                    }
                }
            },
            sourceLocation: sourceLocation
        )
    }
}

// MARK: Steps

/// What a step does; its three numbers pick the operands among what exists at that moment.
private enum StepKind: Int, CaseIterable, Sendable {
    case launch, create, invalidate, resume, disconnect, goodbye, setState, answer, setAuthorization
    case services, locationButton, startUpdates, stopUpdates, request, advance, fix

    /// How often each kind is drawn, out of ``totalWeight``.
    var weight: Int {
        switch self {
        case .create, .answer: 5
        case .launch, .setState, .advance: 4
        case .request: 3
        case .invalidate, .resume, .disconnect, .startUpdates, .fix: 2
        case .goodbye, .setAuthorization, .services, .locationButton, .stopUpdates: 1
        }
    }

    static let totalWeight = allCases.reduce(0) { $0 + $1.weight }

    init(draw: Int) {
        var rest = draw
        for kind in StepKind.allCases {
            if rest < kind.weight {
                self = kind
                return
            }
            rest -= kind.weight
        }
        self = .advance
    }
}

/// A scenario: which apps take part, and the steps.
private struct Script: Sendable, CustomStringConvertible {
    var everyApp: Bool
    var steps: [Step]

    var apps: [String] { everyApp ? Scenario.everyApp : ["com.ex.maps"] }
    var description: String { "\(everyApp ? "every app" : "com.ex.maps"): \(steps)" }
}

private struct Step: Sendable, CustomStringConvertible {
    var kind: StepKind
    var a: Int
    var b: Int
    var c: Int

    var description: String { "\(kind)(\(a),\(b),\(c))" }
}

// MARK: Scenario

/// A harness with an admin, an agent on `Admin.Prompts`, and the apps' connections, driven by ``Step``s.
private struct Scenario {
    /// The default manifests but `com.ex.bare`, which can ask for nothing.
    static let everyApp = ["com.ex.maps", "com.ex.run", "com.ex.explicit", "com.ex.approx"]
    static let purposeKeys = ["Navigation", "Radar"]

    /// An app by number; the first, `com.ex.maps`, whose manifest offers every prompt, comes up twice as often.
    func app(_ number: Int) -> String {
        let draw = number % (apps.count + 1)
        return draw == apps.count ? apps[0] : apps[draw]
    }

    /// Sequences of 1 to ``PropertyTests/maxSteps`` steps; shrinking drops steps and lowers their numbers.
    static let steps = zip(
        Gen.int(in: 0...(StepKind.totalWeight - 1)),
        Gen.int(in: 0...99),
        Gen.int(in: 0...99),
        Gen.int(in: 0...200)
    )
    .map { Step(kind: StepKind(draw: $0), a: $1, b: $2, c: $3) }
    .array(of: 1...PropertyTests.maxSteps)

    /// Scripts: steps for every app, or for `com.ex.maps` alone, whose prompts then queue up more often.
    static let scripts = zip(Gen.bool, steps).map { Script(everyApp: $0, steps: $1) }

    struct Connection {
        var client: ClientID
        var appID: String
        var pid: Int32
    }

    var h = Harness()
    let apps: [String]
    /// Wake the core at every armed instant on the way, instead of once at the end of an advance.
    var punctual = false
    let admin: ClientID
    let agent: CallID
    /// Connections that said Hello and make the app's calls.
    var connections: [Connection] = []
    /// Connections that each carry one `LiveUpdates` or `MonitorEvents` stream.
    var streamConnections: [Connection] = []
    var nextPID: Int32 = 5000
    /// Every session id the apps were given, ended or not.
    var created: [String: [SessionID]] = [:]
    var diagnosticStreams: [CallID: SessionID] = [:]
    /// Everything each diagnostics stream received, in order.
    var diagnostics: [CallID: [(mask: DiagnosticMask, ended: Bool)]] = [:]
    /// The session the last step created (a resume covers nothing, L4).
    var claimed: SessionID?
    /// The last mask each `LiveUpdates` or `MonitorEvents` stream received.
    var updates: [CallID: DiagnosticMask] = [:]
    /// The `LiveUpdates` updates the last step sent.
    var updatesThisStep: [(stream: CallID, mask: DiagnosticMask, location: Fix?)] = []
    /// Prompts the agent holds (sent and not withdrawn), with their app.
    var shown: [PromptID: String] = [:]
    /// Prompts sent to the agent by the last step, with their app's state and grant after that event.
    var raisedThisStep: [(prompt: PromptView, state: AppState, provisional: Bool)] = []
    /// The instant the core last asked to be woken at.
    var armed: Instant?
    var trace: [String] = []
    var traceText: String { trace.joined(separator: "\n") }

    init(apps: [String]) {
        self.apps = apps
        admin = h.connect()
        agent = h.call(admin, .prompts)
        observe()
    }

    var core: LocationCore { h.core }

    // MARK: Running

    mutating func run(_ step: Step) {
        raisedThisStep = []
        updatesThisStep = []
        claimed = nil
        let note: String
        switch step.kind {
        case .launch: note = launch(step)
        case .create: note = create(step)
        case .invalidate: note = invalidate(step)
        case .resume: note = resume(step)
        case .disconnect: note = disconnect(step)
        case .goodbye: note = goodbye(step)
        case .setState: note = setState(step)
        case .answer: note = answer(step)
        case .setAuthorization: note = setAuthorization(step)
        case .services:
            let enabled = step.b % 3 != 0
            call(admin, .setLocationServices(enabled))
            note = "services \(enabled ? "on" : "off")"
        case .locationButton:
            let appID = app(step.a)
            call(admin, .locationButton(appID: appID, user: nil))
            note = "location button \(appID)"
        case .startUpdates: note = startUpdates(step)
        case .stopUpdates: note = stopUpdates(step)
        case .request: note = request(step)
        case .fix: note = fix(step)
        case .advance:
            let seconds = Double(step.c) / [20, 4, 1][step.b % 3]
            advance(seconds)
            note = "advance \(seconds) s"
        }
        trace.append("\(step) → \(note)")
    }

    /// Moves time forward: late, with one wake-up at the end, or punctually at every armed instant.
    mutating func advance(_ seconds: Double) {
        let target = h.now.adding(.seconds(seconds))
        if punctual {
            while let next = armed, next > h.now, next < target {
                h.now = next
                h.send(.deadlineReached)
                observe()
            }
        }
        h.now = target
        h.send(.deadlineReached)
        observe()
    }

    @discardableResult
    private mutating func call(_ client: ClientID, _ method: Call) -> CallID {
        let id = h.call(client, method)
        observe()
        return id
    }

    private mutating func connect(pid: Int32) -> ClientID {
        let client = h.connect(pid: pid)
        observe()
        return client
    }

    /// Reads what the last event sent to the agent and the diagnostics streams, and the timer.
    private mutating func observe() {
        for action in h.last {
            switch action {
            case .emit(agent, .prompt(let view)):
                shown[view.id] = view.appID
                let state = core.appState(AppKey.noUser(view.appID))!.state
                raisedThisStep.append((view, state, core.authorizationView(AppKey.noUser(view.appID)).provisional))
            case .emit(agent, .withdrawn(let id)):
                shown[id] = nil
            case .emit(let stream, .diagnostic(let mask, let ended)),
                .end(let stream, .diagnostic(let mask, let ended)?):
                diagnostics[stream, default: []].append((mask, ended))
            case .emit(let stream, .update(let mask, let location)):
                updates[stream] = mask
                updatesThisStep.append((stream, mask, location))
            case .emit(let stream, .monitor(let mask)):
                updates[stream] = mask
            case .armTimer(let instant):
                armed = instant
            default:
                break
            }
        }
    }

    private func pick<T>(_ items: [T], _ number: Int) -> T? {
        items.isEmpty ? nil : items[number % items.count]
    }

    private func describe(_ result: CallID) -> String {
        if let error = h.error(of: result) { return "fails \(error.wireName)" }
        return "ok"
    }

    // MARK: Steps

    private mutating func launch(_ step: Step) -> String {
        let appID = app(step.a)
        let state: RunningState? = [nil, .foreground, .background][step.b % 3]
        return launch(appID, state: state, newProcess: step.c % 3 != 0).note
    }

    /// Connects and says Hello, from a new process or another connection of the app's last one.
    private mutating func launch(
        _ appID: String,
        state: RunningState?,
        newProcess: Bool
    ) -> (connection: Connection, note: String) {
        let sibling = newProcess ? nil : connections.last { $0.appID == appID }
        let pid = sibling?.pid ?? nextPID
        if sibling == nil { nextPID += 1 }
        let client = connect(pid: pid)
        call(client, .hello(appID: appID, state: state))
        let connection = Connection(client: client, appID: appID, pid: pid)
        connections.append(connection)
        let note =
            "\(client) pid \(pid) hello \(appID) \(state?.rawValue ?? "-") → \(core.appState(AppKey.noUser(appID))!.state.rawValue)"
        return (connection, note)
    }

    /// The connection a step acts through; with none, the step launches an app first, so no step is wasted.
    private mutating func connection(for step: Step) -> Connection {
        if connections.isEmpty {
            let appID = app(step.a)
            trace.append("  " + launch(appID, state: step.c % 4 == 0 ? .background : nil, newProcess: true).note)
        }
        return pick(connections, step.a)!
    }

    private mutating func create(_ step: Step) -> String {
        let connection = connection(for: step)
        let requirement = Requirement.allCases[step.b % 3]
        let own = connection.appID == "com.ex.approx" ? "Radar" : "Navigation"
        let key = [nil, own, own, "Radar"][step.c % 4]
        let result = call(connection.client, .createSession(requirement, purposeKey: key))
        guard case .session(let view)? = h.reply(to: result) else {
            return "\(connection.client) create \(requirement.rawValue) \(key ?? "-") \(describe(result))"
        }
        created[connection.appID, default: []].append(view.id)
        claimed = view.id
        let stream = call(connection.client, .sessionDiagnostics(view.id.description))
        diagnosticStreams[stream] = view.id
        return "\(connection.client) create \(requirement.rawValue) \(key ?? "-") → \(view.id) \(view.state.rawValue)"
    }

    private mutating func invalidate(_ step: Step) -> String {
        let connection = connection(for: step)
        guard let id = pick(created[connection.appID] ?? [], step.b) else { return "nothing to invalidate" }
        let result = call(connection.client, .invalidateSession(id.description))
        return "\(connection.client) invalidate \(id) \(describe(result))"
    }

    /// Resumes a lingering session, relaunching its app first when no connection of it is left (L4, S14).
    private mutating func resume(_ step: Step) -> String {
        let lingering = core.sessionIDs.filter { core.sessionView($0)!.state == .lingering }
        guard let id = pick(lingering, step.b) else { return "nothing lingers" }
        let appID = core.sessionView(id)!.appID
        let connection =
            pick(connections.filter { $0.appID == appID }, step.a)
            ?? launch(appID, state: step.c % 4 == 0 ? .background : nil, newProcess: true).connection
        let result = call(connection.client, .resumeSession(id.description))
        return "\(connection.client) resume \(id) \(describe(result))"
    }

    private mutating func disconnect(_ step: Step) -> String {
        let connection = connection(for: step)
        h.disconnect(connection.client)
        observe()
        connections.removeAll { $0.client == connection.client }
        return "\(connection.client) closes → \(core.appState(AppKey.noUser(connection.appID))!.state.rawValue)"
    }

    /// `Goodbye`, then the process exits: its other connections close too (and change nothing, L3).
    private mutating func goodbye(_ step: Step) -> String {
        let connection = connection(for: step)
        call(connection.client, .goodbye)
        let state = core.appState(AppKey.noUser(connection.appID))!.state
        let process = { (other: Connection) in other.appID == connection.appID && other.pid == connection.pid }
        for other in connections.filter(process) + streamConnections.filter(process) {
            h.disconnect(other.client)
            observe()
        }
        connections.removeAll(where: process)
        streamConnections.removeAll(where: process)
        return "\(connection.client) pid \(connection.pid) goodbye → \(state.rawValue)"
    }

    private mutating func setState(_ step: Step) -> String {
        let connection = connection(for: step)
        let state: RunningState = step.b % 2 == 0 ? .foreground : .background
        if step.c % 2 == 0 {
            call(connection.client, .setAppState(state))
        } else {
            call(admin, .adminSetAppState(appID: connection.appID, state: state, user: nil))
        }
        return
            "\(connection.appID) → \(state.rawValue), in use \(core.appState(AppKey.noUser(connection.appID))!.inUse)"
    }

    private mutating func answer(_ step: Step) -> String {
        let waiting = apps.filter { !core.queuedPrompts(of: AppKey.noUser($0)).isEmpty }
        guard let appID = pick(waiting, step.a), let head = core.queuedPrompts(of: AppKey.noUser(appID)).first else {
            return "no prompt"
        }
        // The first option, which grants, twice as often: a denial ends the app's prompting for good.
        let answer = head.options[step.b % (head.options.count + 1) % head.options.count]
        let accuracy: PromptAccuracy? = [nil, .full, .reduced, .reduced][step.c % 4]
        let result = call(admin, .answerPrompt(id: head.id.description, answer: answer, accuracy: accuracy))
        return "answer \(head.id) \(head.kind.rawValue) of \(appID) \(answer.rawValue) \(describe(result))"
            + " → \(core.authorizationView(AppKey.noUser(appID)).status.rawValue)"
    }

    private mutating func setAuthorization(_ step: Step) -> String {
        let appID = app(step.a)
        let setting: AuthorizationSetting? = [nil, .never, .askNextTime, .whileUsing, .always][step.b % 5]
        let precise: Bool? = [nil, true, false][step.c % 3]
        call(admin, .setAuthorization(appID: appID, setting: setting, precise: precise, user: nil))
        return "set \(appID) \(setting?.rawValue ?? "-") precise \(precise.map(String.init) ?? "-")"
    }

    /// A stream opens its own connection of the same process (PROTOCOL: one connection per stream).
    private mutating func startUpdates(_ step: Step) -> String {
        let owner = connection(for: step)
        let client = connect(pid: owner.pid)
        call(client, .hello(appID: owner.appID, state: nil))
        let method: Call = step.b % 3 == 0 ? .monitorEvents(monitor: "home") : .liveUpdates(.standard)
        let stream = call(client, method)
        streamConnections.append(Connection(client: client, appID: owner.appID, pid: owner.pid))
        return "\(client) \(owner.appID) \(step.b % 3 == 0 ? "monitor" : "updates") \(describe(stream))"
    }

    private mutating func stopUpdates(_ step: Step) -> String {
        guard let connection = pick(streamConnections, step.a) else { return "no stream" }
        h.disconnect(connection.client)
        observe()
        streamConnections.removeAll { $0.client == connection.client }
        return "\(connection.client) stream closes → \(core.appState(AppKey.noUser(connection.appID))!.state.rawValue)"
    }

    /// A fix within a few kilometres of Tokyo Station (so cells and the stationary radius both come into
    /// play), or now and then the fix lost.
    private mutating func fix(_ step: Step) -> String {
        if step.c % 5 == 0 {
            h.send(.fixLost)
            observe()
            return "fix lost"
        }
        let fix = Harness.here.moved(north: Double(step.a) * 37, east: Double(step.b) * 53 - 2000)
        h.send(.fix(fix))
        observe()
        return "fix \(step.a * 37) m north, \(step.b * 53 - 2000) m east"
    }

    private mutating func request(_ step: Step) -> String {
        let connection = connection(for: step)
        let method: Call
        switch step.b % 3 {
        case 0: method = .requestAuthorization(.whenInUse)
        case 1: method = .requestAuthorization(.always)
        default: method = .requestTemporaryFullAccuracy(purposeKey: Scenario.purposeKeys[step.c % 2])
        }
        let result = call(connection.client, method)
        return "\(connection.client) \(method) \(describe(result))"
    }

    // MARK: Reading

    /// The earliest deadline that still stands, read from the owners' own fields.
    var earliestDeadline: Instant? {
        var all: [Instant] = []
        for session in core.sessions.values { all += [session.lingerEnds].compactMap { $0 } }
        for app in core.apps.values {
            all += [app.graceEnds, app.relaunchEnds, app.restartEnds, app.reconfirmAt].compactMap { $0 }
        }
        for prompt in core.prompts.values { all += [prompt.timeoutAt].compactMap { $0 } }
        all += [core.stationary.deadline].compactMap { $0 }
        return all.min()
    }

    /// Records, app states, sessions and prompt queues: what a late timer must not change.
    var outcome: Outcome {
        Outcome(
            records: apps.map { core.storedRecord(AppKey.noUser($0))! },
            states: apps.map { core.appState(AppKey.noUser($0))!.state },
            sessions: core.sessionIDs.map { id in
                var view = core.sessionView(id)!
                view.remaining = nil
                return view
            },
            prompts: apps.flatMap { core.queuedPrompts(of: AppKey.noUser($0)) }
        )
    }
}

private struct Outcome: Equatable {
    var records: [AuthorizationRecord]
    var states: [AppState]
    var sessions: [SessionView]
    var prompts: [PromptView]

    /// The parts of `self` that differ from `other`, for failure messages.
    func difference(from other: Outcome) -> String {
        var parts: [String] = []
        if records != other.records { parts.append("records \(records)") }
        if states != other.states { parts.append("states \(states)") }
        if sessions != other.sessions {
            let differing = sessions.filter { !other.sessions.contains($0) }
            parts.append(
                "sessions \(differing.map { "\($0.id) \($0.state.rawValue) \($0.diagnostic) \($0.deadline as Any)" })"
            )
        }
        if prompts != other.prompts {
            let differing = prompts.filter { !other.prompts.contains($0) }
            parts.append("prompts \(differing.map { "\($0.id) \($0.kind.rawValue) raised at \($0.raisedAt)" })")
        }
        return parts.joined(separator: ", ")
    }
}

/// Whether two actions are the same, payload and all.
private func same(_ a: Action, _ b: Action) -> Bool {
    switch (a, b) {
    case (.reply(let c1, let r1), .reply(let c2, let r2)): c1 == c2 && r1 == r2
    case (.fail(let c1, let e1), .fail(let c2, let e2)): c1 == c2 && e1 == e2
    case (.emit(let c1, let m1), .emit(let c2, let m2)): c1 == c2 && m1 == m2
    case (.end(let c1, let m1), .end(let c2, let m2)): c1 == c2 && m1 == m2
    case (.persist(let p1), .persist(let p2)): p1 == p2
    case (.armTimer(let t1), .armTimer(let t2)): t1 == t2
    case (.provider(let r1), .provider(let r2)): r1 == r2
    case (.nobodyToAsk(let a1), .nobodyToAsk(let a2)), (.carriedOver(let a1), .carriedOver(let a2)): a1 == a2
    case (.overruled(let a1, let d1), .overruled(let a2, let d2)): a1 == a2 && d1 == d2
    case (.speaksFor(let c1, let a1), .speaksFor(let c2, let a2)): c1 == c2 && a1 == a2
    case (.refused(let c1, let r1), .refused(let c2, let r2)): c1 == c2 && r1 == r2
    default: false
    }
}
