import LocationCore
import LocationExplorer
import Testing

/// Each invariant shown a forged transition that breaks its rule, and the honest one beside it.
@Suite("Invariants")
struct InvariantTests {
    static let size = ExplorerSize(apps: 2, clients: 3, users: 2, depth: 1)

    /// The state after `events`, each of which must be enabled where it happens.
    static func state(_ events: [ModelEvent]) -> ModelState {
        var state = ModelState(size: size)
        for event in events {
            #expect(state.enabledEvents.contains(event), "\(event) is not enabled")
            _ = state.apply(event)
        }
        return state
    }

    /// A transition that changes nothing and does `actions`.
    static func still(_ state: ModelState, _ actions: [Action] = [], event: ModelEvent = .fix) -> Transition {
        Transition(before: state, event: event, actions: actions, after: state)
    }

    static let authorizedApproximate: [ModelEvent] = [
        .launch(client: 0, app: 1, user: 0, background: false), .create(client: 0, .whenInUse, purpose: false),
        .answer(app: 1, user: 0, .allowWhileUsing), .liveUpdates(client: 0),
    ]

    @Test("U1, D1: a location sent to an app that is not authorized is caught")
    func locationWithoutAuthorization() throws {
        let state = Self.state([.launch(client: 0, app: 0, user: 0, background: false), .liveUpdates(client: 0)])
        let stream = try #require(state.clients[0].stream)
        let leak = Action.emit(stream, .update([], location: Self.here))
        #expect(Invariant.locationNeedsAuthorization.check(Self.still(state, [leak])) != nil)
        #expect(Invariant.locationNeedsAuthorization.check(Self.still(state)) == nil)
    }

    @Test("U2, D8: a precise location sent to an approximate app is caught, its cell's centre is not")
    func preciseToApproximate() throws {
        let state = Self.state(Self.authorizedApproximate)
        #expect(state.core.authorizationView(state.appKey(of: 0)).accuracy == .reducedAccuracy)
        let stream = try #require(state.clients[0].stream)
        let precise = Action.emit(stream, .update([.accuracyLimited], location: Self.here))
        #expect(Invariant.approximateGetsCells.check(Self.still(state, [precise])) != nil)
        let cell = GridCell(latitude: Self.here.latitude, longitude: Self.here.longitude)
        let centre = Fix(
            latitude: cell.centreLatitude,
            longitude: cell.centreLongitude,
            horizontalAccuracy: 5000,
            timestamp: Self.here.timestamp
        )
        let quantised = Action.emit(stream, .update([.accuracyLimited], location: centre))
        #expect(Invariant.approximateGetsCells.check(Self.still(state, [quantised])) == nil)
        #expect(Invariant.locationNeedsAuthorization.check(Self.still(state, [quantised])) == nil)
    }

    @Test("S6, S7, S8: an authorization prompt raised once the app is authorized is caught")
    func promptAfterDecision() throws {
        let asking = Self.state(Array(Self.authorizedApproximate.prefix(2)))
        let prompt = try #require(asking.core.queuedPrompts(of: asking.appKey(of: 0)).first)
        #expect(prompt.kind == .authorization)
        let raised = Action.emit(asking.agent, .prompt(prompt))
        #expect(Invariant.promptsOnlyWhenAsked.check(Self.still(asking, [raised])) == nil)
        let answered = Self.state(Array(Self.authorizedApproximate.prefix(3)))
        #expect(Invariant.promptsOnlyWhenAsked.check(Self.still(answered, [raised])) != nil)
    }

    @Test("L5, P2: an Allow Once grant kept by an app not in use is caught")
    func allowOnceOutlivesUse() {
        var state = Self.state([])
        let key = state.appKey(app: 0, user: 0)
        var record = AuthorizationRecord()
        record.status = .authorizedWhenInUse
        record.oneTime = true
        // A core whose store says Allow Once for an app that is not running: what a missed L5 would leave.
        state.core = LocationCore(
            configuration: CoreConfiguration(),
            manifests: Self.size.manifests,
            restoring: CoreSnapshot(records: [key: record]),
            epoch: 2,
            at: state.now
        )
        #expect(Invariant.grantsEndWithUse.check(Self.still(state)) != nil)
        #expect(Invariant.grantsEndWithUse.check(Self.still(Self.state([]))) == nil)
    }

    @Test("R1, R2: a decision the store does not hold is caught")
    func decisionNotStored() {
        let state = Self.state(Array(Self.authorizedApproximate.prefix(3)))
        #expect(Invariant.nothingLost.check(Self.still(state)) == nil)
        var lost = state
        lost.store.records[state.appKey(of: 0)] = AuthorizationRecord()
        #expect(Invariant.nothingLost.check(Self.still(lost)) != nil)
        var forgotten = state
        forgotten.store.sessions = []
        #expect(Invariant.nothingLost.check(Self.still(forgotten)) != nil)
    }

    @Test("R3: a restart that restores less than the store held is caught")
    func restartLosesSession() {
        let state = Self.state([
            .launch(client: 0, app: 0, user: 0, background: false), .create(client: 0, .whenInUse, purpose: false),
        ])
        var restarted = state
        let actions = restarted.apply(.restart)
        let honest = Transition(before: state, event: .restart, actions: actions, after: restarted)
        #expect(Invariant.nothingLost.check(honest) == nil)
        var fresh = restarted
        fresh.core = LocationCore(configuration: CoreConfiguration(), manifests: Self.size.manifests, epoch: 3)
        fresh.store = CoreSnapshot()
        let lossy = Transition(before: state, event: .restart, actions: actions, after: fresh)
        #expect(Invariant.nothingLost.check(lossy) != nil)
    }

    @Test("D1, D12: an active session with a limiting bit, or services off unflagged, is caught")
    func inconsistentMask() throws {
        let state = Self.state([
            .launch(client: 0, app: 0, user: 0, background: false), .create(client: 0, .whenInUse, purpose: false),
        ])
        let id = try #require(state.core.sessionIDs.first)
        var view = try #require(state.core.sessionView(id))
        #expect(view.diagnostic.contains(.authorizationRequestInProgress))
        #expect(Invariant.diagnosticsProblem(view, servicesOn: true, status: .notDetermined) == nil)
        #expect(Invariant.diagnosticsProblem(view, servicesOn: false, status: .notDetermined) != nil)
        view.state = .active
        #expect(Invariant.diagnosticsProblem(view, servicesOn: true, status: .notDetermined) != nil)
        view.diagnostic = []
        #expect(Invariant.diagnosticsProblem(view, servicesOn: true, status: .notDetermined) != nil)
        #expect(Invariant.diagnosticsProblem(view, servicesOn: true, status: .authorizedWhenInUse) == nil)
        #expect(Invariant.diagnosticsMatchState.check(Self.still(state)) == nil)
    }

    @Test("H1: one user's answer that decides for another user is caught")
    func answerCrossesUsers() {
        let asking = Self.state([
            .launch(client: 0, app: 0, user: 1, background: false), .create(client: 0, .whenInUse, purpose: false),
        ])
        var answered = asking
        let actions = answered.apply(.answer(app: 0, user: 1, .allowWhileUsing))
        let own = Transition(
            before: asking,
            event: .answer(app: 0, user: 1, .allowWhileUsing),
            actions: actions,
            after: answered
        )
        #expect(Invariant.usersApart.check(own) == nil)
        let other = Transition(
            before: asking,
            event: .answer(app: 0, user: 0, .allowWhileUsing),
            actions: actions,
            after: answered
        )
        #expect(Invariant.usersApart.check(other) != nil)
    }

    @Test("L1: a desktop report of the background that leaves the app in front is caught")
    func desktopReportIgnored() {
        let front = Self.state([.launch(client: 0, app: 0, user: 0, background: false)])
        #expect(front.core.appState(front.appKey(of: 0))?.state == .foreground)
        let ignored = Self.still(front, event: .desktop(app: 0, user: 0, .background))
        #expect(Invariant.desktopReportHolds.check(ignored) != nil)
        var moved = front
        let actions = moved.apply(.desktop(app: 0, user: 0, .background))
        let honest = Transition(
            before: front,
            event: .desktop(app: 0, user: 0, .background),
            actions: actions,
            after: moved
        )
        #expect(Invariant.desktopReportHolds.check(honest) == nil)
    }

    @Test("L6: a lingering session's deadline with no timer armed, or one armed later, is caught")
    func deadlineNotArmed() throws {
        let state = Self.state([
            .launch(client: 0, app: 0, user: 0, background: false), .create(client: 0, .whenInUse, purpose: false),
            .disconnect(client: 0),
        ])
        let deadline = try #require(state.standingDeadlines.min())
        #expect(state.armed == deadline)
        #expect(Invariant.deadlinesRechecked.check(Self.still(state)) == nil)
        var unarmed = state
        unarmed.armed = nil
        #expect(Invariant.deadlinesRechecked.check(Self.still(unarmed)) != nil)
        var late = state
        late.armed = deadline.adding(.seconds(1))
        #expect(Invariant.deadlinesRechecked.check(Self.still(late)) != nil)
    }

    static let here = Fix(latitude: 35.681236, longitude: 139.767125, horizontalAccuracy: 5, timestamp: 1_700_000_000)
}
