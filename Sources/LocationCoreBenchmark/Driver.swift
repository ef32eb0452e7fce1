import LocationCore

/// A core and the ids the shell would hand it: connections, call serials and the clock.
struct Driver {
    var core: LocationCore
    var now = Instant.seconds(1000)
    var nextClient: UInt64 = 1
    var nextSerial: UInt64 = 1
    /// Counts actions, so the optimiser cannot drop the work that made them.
    var sink = 0

    init(apps: Int) {
        let manifests = (0..<apps).map { Manifest(appID: Driver.appID($0), whenInUseUsageDescription: "bench") }
        let configuration = CoreConfiguration(maxSessionsPerApp: 1_000, maxClientsPerApp: 1_000)
        core = LocationCore(configuration: configuration, manifests: manifests)
    }

    static func appID(_ index: Int) -> String { "org.bench.app\(index)" }

    @discardableResult
    mutating func send(_ event: Event) -> [Action] {
        let actions = core.handle(event, at: now)
        sink &+= actions.count
        return actions
    }

    mutating func connect() -> ClientID {
        let client = ClientID(nextClient)
        nextClient += 1
        send(.connected(client, pid: Int32(truncatingIfNeeded: client.raw), uid: nil))
        return client
    }

    @discardableResult
    mutating func call(_ client: ClientID, _ method: Call) -> [Action] {
        let id = CallID(client: client, serial: nextSerial)
        nextSerial += 1
        return send(.call(id, method))
    }

    /// Creates a session and returns its id.
    mutating func create(_ client: ClientID) -> SessionID {
        for case .reply(_, .session(let view)) in call(client, .createSession(.whenInUse, purposeKey: nil)) {
            return view.id
        }
        fatalError("CreateSession failed: raise max-sessions-per-app in the benchmark's configuration")
    }

    /// Every app authorized While Using and in the foreground, with one connection each.
    mutating func launchAuthorizedApps(_ apps: Int) -> [ClientID] {
        let admin = connect()
        return (0..<apps).map { index in
            call(admin, .setAuthorization(appID: Driver.appID(index), setting: .whileUsing, precise: true, user: nil))
            let client = connect()
            call(client, .hello(appID: Driver.appID(index), state: .foreground))
            return client
        }
    }
}
