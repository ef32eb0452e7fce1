import LocationCore
import LocationStore

/// Drives a ``LocationCore`` the way the daemon's shell does: each event's `persist` actions go to the store
/// in one ``LocationStore/apply(_:)`` before anything else would be sent.
struct CoreDriver {
    var core: LocationCore
    let store: LocationStore
    var now = Instant.seconds(1000)
    private var nextClient: UInt64 = 1
    private var nextSerial: UInt64 = 1
    /// Every write the core asked for, in order.
    private(set) var written: [Persist] = []
    /// The actions of the last event.
    private(set) var last: [Action] = []

    init(manifests: [Manifest], configuration: CoreConfiguration = CoreConfiguration(), store: LocationStore) {
        core = LocationCore(configuration: configuration, manifests: manifests, epoch: 1)
        self.store = store
    }

    @discardableResult
    mutating func send(_ event: Event) throws -> [Action] {
        last = core.handle(event, at: now)
        let writes = last.compactMap { action -> Persist? in
            if case .persist(let write) = action { write } else { nil }
        }
        try store.apply(writes)
        written += writes
        return last
    }

    mutating func connect(pid: Int32) throws -> ClientID {
        let client = ClientID(nextClient)
        nextClient += 1
        try send(.connected(client, pid: pid))
        return client
    }

    @discardableResult
    mutating func call(_ client: ClientID, _ method: Call) throws -> CallID {
        let id = CallID(client: client, serial: nextSerial)
        nextSerial += 1
        try send(.call(id, method))
        return id
    }

    /// The reply to `call` in the last event, if it succeeded.
    func reply(to call: CallID) -> Reply? {
        for action in last {
            if case .reply(call, let reply) = action { return reply }
        }
        return nil
    }

    mutating func advance(_ seconds: Double) throws {
        now = now.adding(.seconds(seconds))
        try send(.deadlineReached)
    }
}
