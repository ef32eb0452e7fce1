import LocationCore

/// One process's connection, as the world around the core knows it.
package struct ClientSlot: Hashable, Sendable {
    /// The open connection, `nil` while the process has none.
    package var connection: ClientID?
    package var app = 0
    package var user = 0
    /// The `LiveUpdates` stream open on the connection.
    package var stream: CallID?
    /// The sessions this process created, oldest first.
    package var sessions: [SessionID] = []

    package var isConnected: Bool { connection != nil }
}

/// The core and the world around it: the processes' connections, the agent, the clock, the armed timer and what
/// the store holds.
package struct ModelState {
    package let size: ExplorerSize
    /// Every user's app, by user then app: made once, as the checks after every event read them many times.
    package let keys: [[AppKey]]
    /// ``keys``, users outermost.
    package let appKeys: [AppKey]
    package var core: LocationCore
    package var now: Instant
    /// The instant of the last `armTimer` the core returned.
    package var armed: Instant?
    package var clients: [ClientSlot]
    /// The administrator's connection, which answers prompts, reports the desktop and turns the switch.
    package var admin: ClientID
    /// The person's agent: `Admin.PromptsOfEveryone` on the administrator's connection, offered every user's
    /// prompts (H7).
    package var agent: CallID
    /// What the store holds: every `persist` action applied in order (SEMANTICS §10).
    package var store: CoreSnapshot
    package var epoch: UInt32
    package var nextClient: UInt64 = 1
    package var nextSerial: UInt64 = 1

    static let configuration = CoreConfiguration()
    static let start = Instant.seconds(1000)
    /// How far before or after a deadline `TimePoint.before` and `.after` move the clock.
    static let nudge = Span.seconds(0.5)

    /// The world before anything happened: no process running, the agent connected.
    package init(size: ExplorerSize) {
        self.size = size
        let appIDs = size.appIDs
        keys = size.uids.map { uid in appIDs.map { AppKey($0, user: uid) } }
        appKeys = keys.flatMap { $0 }
        core = LocationCore(configuration: Self.configuration, manifests: size.manifests, epoch: 1)
        now = Self.start
        clients = Array(repeating: ClientSlot(), count: size.clients)
        admin = ClientID(0)
        agent = CallID(client: admin, serial: 0)
        store = CoreSnapshot()
        epoch = 1
        _ = connectAgent()
    }

    package func pid(of client: Int) -> Int32 { 5000 + Int32(client) }
    package func appKey(app: Int, user: Int) -> AppKey { keys[user][app] }
    package func appKey(of client: Int) -> AppKey { appKey(app: clients[client].app, user: clients[client].user) }

    // MARK: Sending

    /// Hands one event to the core at the current instant; the store takes its writes and the timer its instant.
    mutating func send(_ event: Event) -> [Action] {
        let actions = core.handle(event, at: now)
        for action in actions {
            switch action {
            case .persist(let write): store.apply(write)
            case .armTimer(let instant): armed = instant
            default: break
            }
        }
        return actions
    }

    mutating func newClient() -> ClientID {
        defer { nextClient += 1 }
        return ClientID(nextClient)
    }

    mutating func call(_ client: ClientID, _ method: Call) -> (CallID, [Action]) {
        let id = CallID(client: client, serial: nextSerial)
        nextSerial += 1
        return (id, send(.call(id, method)))
    }

    /// The administrator's connection and its agent's `Prompts` stream, opened afresh.
    mutating func connectAgent() -> [Action] {
        admin = newClient()
        var actions = send(.connected(admin, pid: 100, uid: 0, administrator: true))
        let (stream, opened) = call(admin, .promptsOfEveryone)
        agent = stream
        actions += opened
        return actions
    }
}

extension CoreSnapshot {
    /// Applies one write as the store does (LocationStore's `apply`): rows upserted and deleted by their keys.
    package mutating func apply(_ write: Persist) {
        switch write {
        case .record(let key, let record): records[key] = record
        case .locationServices(let enabled): locationServicesEnabled = enabled
        case .userLocationServices(let uid, let enabled):
            if enabled { usersWithServicesOff.remove(uid) } else { usersWithServicesOff.insert(uid) }
        case .policy(let appID, let policy): policies[appID] = policy
        case .session(let session):
            sessions.removeAll { $0.id == session.id }
            sessions.append(session)
        case .sessionRemoved(_, let id): sessions.removeAll { $0.id == id }
        case .app(let app):
            apps.removeAll { $0.app == app.app }
            apps.append(app)
        case .appRemoved(let key):
            apps.removeAll { $0.app == key }
            records[key] = nil
            alwaysUse[key] = nil
        case .prompt(let prompt):
            prompts.removeAll { $0.id == prompt.id }
            prompts.append(prompt)
        case .promptRemoved(let id): prompts.removeAll { $0.id == id }
        case .condition(let condition):
            conditions.removeAll {
                $0.app == condition.app && $0.monitor == condition.monitor && $0.identifier == condition.identifier
            }
            conditions.append(condition)
        case .conditionRemoved(let key, let monitor, let identifier):
            conditions.removeAll { $0.app == key && $0.monitor == monitor && $0.identifier == identifier }
        case .alwaysUse(let key, let used): alwaysUse[key] = used
        }
    }
}
