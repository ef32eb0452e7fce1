import LocationCore

/// What the invariants and the fingerprint read of one state's core, read once through the core's package views:
/// every check of a transition and the state's fingerprint share it instead of asking the core again.
package struct CoreReading {
    /// Every live session, in id order.
    package let sessions: [SessionView]
    /// Each user's app, in ``ModelState/appKeys`` order (users outermost).
    package let apps: [AppReading]

    /// (The state is borrowed, not copied: an initializer's arguments are otherwise its own.)
    package init(_ state: borrowing ModelState) {
        let sessions = state.core.sessionViews
        // One pass over the core's apps (``LocationCore/appViews``), each matched to its place by key.
        var apps = state.appKeys.map { AppReading(key: $0) }
        for view in state.core.appViews {
            guard let index = state.appKeys.firstIndex(of: view.key) else { continue }
            apps[index] = AppReading(
                key: view.key,
                state: view.state,
                inUse: view.inUse,
                record: view.record,
                queue: view.queue
            )
        }
        self.sessions = sessions
        self.apps = apps
    }

    /// The reading of user `user`'s app `app`.
    package func app(_ app: Int, user: Int, of size: ExplorerSize) -> AppReading { apps[user * size.apps + app] }

    /// The reading of `key`, if it is one of the model's apps.
    package func app(_ key: AppKey) -> AppReading? { apps.first { $0.key == key } }
}

/// What the core shows of one user's app.
package struct AppReading {
    package let key: AppKey
    /// Its lifecycle state, `nil` while the core does not hold the app.
    package let state: AppState?
    package let inUse: Bool
    package let record: AuthorizationRecord?
    /// Its pending prompts, head first.
    package let queue: [PromptView]

    /// An app the core does not hold.
    init(key: AppKey) {
        (self.key, state, inUse, record, queue) = (key, nil, false, nil, [])
    }

    init(key: AppKey, state: AppState, inUse: Bool, record: AuthorizationRecord, queue: [PromptView]) {
        (self.key, self.state, self.inUse, self.record, self.queue) = (key, state, inUse, record, queue)
    }
}
