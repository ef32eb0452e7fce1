import Foundation

@testable import LocationCore

/// Drives a ``LocationCore`` in virtual time, the way the daemon's shell would, and keeps what came out.
///
/// Tests read like the rules: `h.hello(a, "com.ex.maps")`, `h.create(a, .whenInUse)`, `h.advance(10)`,
/// then assert on the returned actions, the session's mask, or the record.
struct Harness {
    var core: LocationCore
    var now = Instant.seconds(1000)
    private var nextClient: UInt64 = 1
    private var nextSerial: UInt64 = 1
    /// Everything the core returned, in order.
    private(set) var log: [Action] = []
    /// The actions of the last event.
    private(set) var last: [Action] = []

    init(
        _ manifests: [Manifest] = Harness.defaultManifests,
        configuration: CoreConfiguration = CoreConfiguration()
    ) {
        core = LocationCore(configuration: configuration, manifests: manifests, epoch: 1)
    }

    /// `com.ex.maps` with both descriptions and a purpose key; `com.ex.run` with background location;
    /// `com.ex.bare` with no descriptions; `com.ex.explicit` opted out of implicit sessions;
    /// `com.ex.approx` defaulting to reduced accuracy.
    static let defaultManifests: [Manifest] = [
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
    static let here = Fix(latitude: 35.681236, longitude: 139.767125, horizontalAccuracy: 5, timestamp: 1_700_000_000)

    // MARK: Driving

    /// Sends an event at the current virtual time.
    @discardableResult
    mutating func send(_ event: Event) -> [Action] {
        last = core.handle(event, at: now)
        log.append(contentsOf: last)
        return last
    }

    /// Opens a connection from process `pid` (a fresh pid per client unless given).
    mutating func connect(pid: Int32? = nil) -> ClientID {
        let client = ClientID(nextClient)
        nextClient += 1
        send(.connected(client, pid: pid ?? Int32(1000 + client.raw)))
        return client
    }

    /// Makes a call and returns its id; the reply is in ``last``.
    @discardableResult
    mutating func call(_ client: ClientID, _ method: Call) -> CallID {
        let id = CallID(client: client, serial: nextSerial)
        nextSerial += 1
        send(.call(id, method))
        return id
    }

    /// Connects and says Hello; returns the client.
    mutating func launch(_ appID: String, state: RunningState? = nil, pid: Int32? = nil) -> ClientID {
        let client = connect(pid: pid)
        call(client, .hello(appID: appID, state: state))
        return client
    }

    mutating func disconnect(_ client: ClientID) {
        send(.disconnected(client))
    }

    /// Moves virtual time forward and delivers a timer wake-up.
    mutating func advance(_ seconds: Double) {
        now = now.adding(.seconds(seconds))
        send(.deadlineReached)
    }

    /// Creates a session and returns its id (fails the test's expectations if the call failed).
    mutating func create(_ client: ClientID, _ requirement: Requirement, purposeKey: String? = nil) -> SessionID? {
        let call = call(client, .createSession(requirement, purposeKey: purposeKey))
        guard case .session(let view)? = reply(to: call) else { return nil }
        return view.id
    }

    /// Answers the head prompt of an app.
    @discardableResult
    mutating func answer(
        _ appID: String,
        _ answer: PromptAnswer,
        accuracy: PromptAccuracy? = nil,
        admin: ClientID? = nil
    ) -> LocationError? {
        guard let head = core.queuedPrompts(of: appID).first else { return .noSuchPrompt(id: "(none)") }
        let adminClient = admin ?? connect()
        let call = call(adminClient, .answerPrompt(id: head.id.description, answer: answer, accuracy: accuracy))
        return error(of: call)
    }

    /// Sets the record as an admin would.
    mutating func set(_ appID: String, _ setting: AuthorizationSetting?, precise: Bool? = nil) {
        let admin = connect()
        call(admin, .setAuthorization(appID: appID, setting: setting, precise: precise))
    }

    // MARK: Reading

    /// The reply to a call in the last event, if it succeeded.
    func reply(to call: CallID) -> Reply? {
        for action in last {
            if case .reply(call, let reply) = action { return reply }
        }
        return nil
    }

    /// The error of a call in the last event, if it failed.
    func error(of call: CallID) -> LocationError? {
        for action in last {
            if case .fail(call, let error) = action { return error }
        }
        return nil
    }

    /// Messages a stream received in the last event (final replies included).
    func messages(to stream: CallID, inLast: Bool = true) -> [StreamMessage] {
        (inLast ? last : log).compactMap { action in
            switch action {
            case .emit(stream, let message): message
            case .end(stream, let message?): message
            default: nil
            }
        }
    }

    /// Whether a stream got its final reply in the log.
    func ended(_ stream: CallID) -> Bool {
        log.contains { if case .end(stream, _) = $0 { true } else { false } }
    }

    /// The locations a `LiveUpdates` stream was sent over the whole log, `nil` for an update without one.
    func locations(on stream: CallID) -> [Fix?] {
        messages(to: stream, inLast: false).compactMap { message in
            if case .update(_, let location) = message { location } else { nil }
        }
    }

    /// Diagnostic masks sent on a stream over the whole log.
    func masks(on stream: CallID) -> [DiagnosticMask] {
        messages(to: stream, inLast: false).compactMap { message in
            switch message {
            case .diagnostic(let mask, _), .update(let mask, _), .monitor(let mask): mask
            default: nil
            }
        }
    }

    func session(_ id: SessionID) -> SessionView? { core.sessionView(id) }
    func mask(_ id: SessionID) -> DiagnosticMask? { core.sessionView(id)?.diagnostic }
    func state(_ id: SessionID) -> SessionState? { core.sessionView(id)?.state }
    func authorization(_ appID: String) -> AuthorizationView { core.authorizationView(appID) }
    func status(_ appID: String) -> AuthorizationStatus { core.authorizationView(appID).status }
    func prompts(_ appID: String) -> [PromptView] { core.queuedPrompts(of: appID) }
    func inUse(_ appID: String) -> Bool { core.appState(appID)?.inUse ?? false }
    func appState(_ appID: String) -> AppState? { core.appState(appID)?.state }

    /// Persist actions of the last event.
    var persisted: [Persist] {
        last.compactMap { if case .persist(let write) = $0 { write } else { nil } }
    }
}

extension Fix {
    /// The fix displaced `north` and `east` metres (negative: south, west), on the mean sphere.
    func moved(north: Double = 0, east: Double = 0, accuracy: Double? = nil) -> Fix {
        var fix = self
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        fix.latitude += north / metresPerDegree
        fix.longitude += east / (metresPerDegree * cos(latitude * Double.pi / 180))
        if let accuracy { fix.horizontalAccuracy = accuracy }
        return fix
    }
}
