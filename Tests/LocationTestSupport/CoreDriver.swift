import Foundation
import LocationCore

/// Drives a ``LocationCore`` in virtual time, the way the daemon's shell would, and keeps what came out.
///
/// Tests read like the rules: `h.hello(a, "com.ex.maps")`, `h.create(a, .whenInUse)`, `h.advance(10)`,
/// then assert on the returned actions, the session's mask, or the record. With a store (`persist`), each
/// event's `persist` actions go to it in one write before anything else would be sent, as the shell does;
/// `Failure` is what that write may throw, `Never` without a store, so that calls need no `try`.
package struct CoreDriver<Failure: Error> {
    package var core: LocationCore
    package var now = Instant.seconds(1000)
    private let persist: ([Persist]) throws(Failure) -> Void
    private var nextClient: UInt64 = 1
    private var nextSerial: UInt64 = 1
    /// Everything the core returned, in order.
    package private(set) var log: [Action] = []
    /// The actions of the last event.
    package private(set) var last: [Action] = []
    /// Every write the core asked for, in order.
    package private(set) var written: [Persist] = []

    /// A driver whose events' writes go to `persist`, in one call an event.
    package init(
        manifests: [Manifest],
        configuration: CoreConfiguration = CoreConfiguration(),
        persist: @escaping ([Persist]) throws(Failure) -> Void
    ) {
        core = LocationCore(configuration: configuration, manifests: manifests, epoch: 1)
        self.persist = persist
    }
}

/// The core driver with no store: nothing it does can throw.
package typealias Harness = CoreDriver<Never>

extension CoreDriver where Failure == Never {
    package init(
        _ manifests: [Manifest] = Harness.defaultManifests,
        configuration: CoreConfiguration = CoreConfiguration()
    ) {
        self.init(manifests: manifests, configuration: configuration, persist: { _ in })
    }

    /// `com.ex.maps` with both descriptions and a purpose key; `com.ex.run` with background location;
    /// `com.ex.bare` with no descriptions; `com.ex.explicit` opted out of implicit sessions;
    /// `com.ex.approx` defaulting to reduced accuracy.
    package static let defaultManifests: [Manifest] = [
        Manifest(
            appID: "com.ex.maps",
            whenInUseUsageDescription: "Shows you on the map",
            alwaysAndWhenInUseUsageDescription: "Tracks your trips",
            temporaryUsageDescriptions: ["Navigation": "Turn-by-turn needs your precise location"]
        ),
        Manifest(
            appID: "com.ex.run",
            whenInUseUsageDescription: "Records your run",
            alwaysAndWhenInUseUsageDescription: "Records runs in the background",
            backgroundLocation: true
        ),
        Manifest(appID: "com.ex.bare"),
        Manifest(
            appID: "com.ex.explicit",
            whenInUseUsageDescription: "Explicit sessions only",
            alwaysAndWhenInUseUsageDescription: "Always, explicitly",
            requireExplicitServiceSession: true
        ),
        Manifest(
            appID: "com.ex.approx",
            whenInUseUsageDescription: "Weather near you",
            temporaryUsageDescriptions: ["Radar": "Precise radar"],
            defaultAccuracyReduced: true
        ),
    ]

    /// A precise fix at Tokyo Station, stamped 2023-11-14 22:13:20 UTC.
    package static let here = Fix(
        latitude: 35.681236,
        longitude: 139.767125,
        horizontalAccuracy: 5,
        timestamp: 1_700_000_000
    )
}

extension CoreDriver {
    // MARK: Driving

    /// Sends an event at the current virtual time; its writes reach the store before this returns.
    @discardableResult
    package mutating func send(_ event: Event) throws(Failure) -> [Action] {
        last = core.handle(event, at: now)
        log.append(contentsOf: last)
        let writes = persisted
        try persist(writes)
        written += writes
        return last
    }

    /// Opens a connection from process `pid` (a fresh pid per client unless given) of `uid` (unknown unless given).
    package mutating func connect(pid: Int32? = nil, uid: UInt32? = nil) throws(Failure) -> ClientID {
        let client = ClientID(nextClient)
        nextClient += 1
        try send(.connected(client, pid: pid ?? Int32(1000 + client.raw), uid: uid))
        return client
    }

    /// Makes a call and returns its id; the reply is in ``last``.
    @discardableResult
    package mutating func call(_ client: ClientID, _ method: Call) throws(Failure) -> CallID {
        let id = CallID(client: client, serial: nextSerial)
        nextSerial += 1
        try send(.call(id, method))
        return id
    }

    /// Connects and says Hello; returns the client.
    package mutating func launch(
        _ appID: String,
        state: RunningState? = nil,
        pid: Int32? = nil
    ) throws(Failure) -> ClientID {
        let client = try connect(pid: pid)
        try call(client, .hello(appID: appID, state: state))
        return client
    }

    package mutating func disconnect(_ client: ClientID) throws(Failure) {
        try send(.disconnected(client))
    }

    /// Moves virtual time forward and delivers a timer wake-up.
    package mutating func advance(_ seconds: Double) throws(Failure) {
        now = now.adding(.seconds(seconds))
        try send(.deadlineReached)
    }

    /// Creates a session and returns its id (fails the test's expectations if the call failed).
    package mutating func create(
        _ client: ClientID,
        _ requirement: Requirement,
        purposeKey: String? = nil
    ) throws(Failure) -> SessionID? {
        let call = try call(client, .createSession(requirement, purposeKey: purposeKey))
        guard case .session(let view)? = reply(to: call) else { return nil }
        return view.id
    }

    /// Answers the head prompt of an app.
    @discardableResult
    package mutating func answer(
        _ appID: String,
        _ answer: PromptAnswer,
        accuracy: PromptAccuracy? = nil,
        admin: ClientID? = nil
    ) throws(Failure) -> LocationError? {
        guard let head = core.queuedPrompts(of: AppKey.noUser(appID)).first else { return .noSuchPrompt(id: "(none)") }
        var adminClient: ClientID
        if let admin { adminClient = admin } else { adminClient = try connect() }
        let call = try call(adminClient, .answerPrompt(id: head.id.description, answer: answer, accuracy: accuracy))
        return error(of: call)
    }

    /// Sets the record as an admin would.
    package mutating func set(
        _ appID: String,
        _ setting: AuthorizationSetting?,
        precise: Bool? = nil
    ) throws(Failure) {
        let admin = try connect()
        try call(admin, .setAuthorization(appID: appID, setting: setting, precise: precise, user: nil))
    }

    // MARK: Reading

    /// The reply to a call in the last event, if it succeeded.
    package func reply(to call: CallID) -> Reply? {
        for action in last {
            if case .reply(call, let reply) = action { return reply }
        }
        return nil
    }

    /// The error of a call in the last event, if it failed.
    package func error(of call: CallID) -> LocationError? {
        for action in last {
            if case .fail(call, let error) = action { return error }
        }
        return nil
    }

    /// Messages a stream received in the last event (final replies included).
    package func messages(to stream: CallID, inLast: Bool = true) -> [StreamMessage] {
        (inLast ? last : log).compactMap { action in
            switch action {
            case .emit(stream, let message): message
            case .end(stream, let message?): message
            default: nil
            }
        }
    }

    /// Whether a stream got its final reply in the log.
    package func ended(_ stream: CallID) -> Bool {
        log.contains { if case .end(stream, _) = $0 { true } else { false } }
    }

    /// The locations a `LiveUpdates` stream was sent over the whole log, `nil` for an update without one.
    package func locations(on stream: CallID) -> [Fix?] {
        messages(to: stream, inLast: false).compactMap { message in
            if case .update(_, let location) = message { location } else { nil }
        }
    }

    /// Diagnostic masks sent on a stream over the whole log.
    package func masks(on stream: CallID) -> [DiagnosticMask] {
        messages(to: stream, inLast: false).compactMap { message in
            switch message {
            case .diagnostic(let mask, _), .update(let mask, _), .monitor(let mask): mask
            default: nil
            }
        }
    }

    package func session(_ id: SessionID) -> SessionView? { core.sessionView(id) }
    package func mask(_ id: SessionID) -> DiagnosticMask? { core.sessionView(id)?.diagnostic }
    package func state(_ id: SessionID) -> SessionState? { core.sessionView(id)?.state }
    package func authorization(_ appID: String) -> AuthorizationView { core.authorizationView(AppKey.noUser(appID)) }
    package func status(_ appID: String) -> AuthorizationStatus { core.authorizationView(AppKey.noUser(appID)).status }
    package func prompts(_ appID: String) -> [PromptView] { core.queuedPrompts(of: AppKey.noUser(appID)) }
    package func inUse(_ appID: String) -> Bool { core.appState(AppKey.noUser(appID))?.inUse ?? false }
    package func appState(_ appID: String) -> AppState? { core.appState(AppKey.noUser(appID))?.state }

    /// Persist actions of the last event.
    package var persisted: [Persist] {
        last.compactMap { if case .persist(let write) = $0 { write } else { nil } }
    }
}

extension CoreDriver {
    /// A user's app (H1), as the queries by app id above read the app of no user.
    package func authorization(_ app: AppKey) -> AuthorizationView { core.authorizationView(app) }
    package func status(_ app: AppKey) -> AuthorizationStatus { core.authorizationView(app).status }
    package func prompts(_ app: AppKey) -> [PromptView] { core.queuedPrompts(of: app) }
    package func inUse(_ app: AppKey) -> Bool { core.appState(app)?.inUse ?? false }
    package func appState(_ app: AppKey) -> AppState? { core.appState(app)?.state }
}

extension CoreDriver where Failure == Never {
    /// Answers the head prompt of a user's app (H1) as an administrator's agent would.
    @discardableResult
    package mutating func answer(_ app: AppKey, _ answer: PromptAnswer) -> LocationError? {
        guard let head = core.queuedPrompts(of: app).first else { return .noSuchPrompt(id: "(none)") }
        let agent = connect()
        let call = call(agent, .answerPrompt(id: head.id.description, answer: answer, accuracy: nil))
        return error(of: call)
    }
}

extension CoreDriver where Failure == Never {
    /// Opens a connection of an ordinary user, one who may not administer (H4).
    package mutating func person(_ uid: UInt32, pid: Int32? = nil) -> ClientID {
        let client = ClientID(nextClient)
        nextClient += 1
        send(.connected(client, pid: pid ?? Int32(1000 + client.raw), uid: uid, administrator: false))
        return client
    }

    /// An ordinary user's process of `appID`, said Hello (H1).
    package mutating func launch(_ appID: String, user uid: UInt32, state: RunningState? = nil) -> ClientID {
        let client = person(uid)
        call(client, .hello(appID: appID, state: state))
        return client
    }
}
