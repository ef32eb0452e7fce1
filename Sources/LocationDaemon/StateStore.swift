import LocationCore

/// Where the daemon's writes go (SEMANTICS §10); the SQLite store in production.
///
/// Called from the ``Committer``'s thread, never from the event loop.
protocol StateStore: AnyObject, Sendable {
    /// Applies one event's writes atomically; decisions are durable when it returns (R1).
    func apply(_ writes: [Persist]) throws
}
