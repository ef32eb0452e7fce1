import LocationCore
import LocationStore

/// The SQLite store as the session manager's ``StateStore``.
final class StoreAdapter: StateStore, Sendable {
    private let store: LocationStore

    init(_ store: LocationStore) {
        self.store = store
    }

    func apply(_ writes: [Persist]) throws {
        try store.apply(writes)
    }
}
