import LocationClient

/// One D-Bus peer's connection to locd as one app: `Hello` with the client's `DesktopId` as the app id, made at the
/// peer's first `Start` and shared by its clients of that app.
///
/// Closing it never says `Goodbye`: locd's `Goodbye` speaks for the calling process, and every app connection of
/// locd-geoclue comes from the same process, so it would end other peers' sessions too. A peer's sessions are ended
/// one by one (`Stop`, `DeleteClient`) before the connection closes, or left to linger when the peer left the bus.
actor LocdApp {
    let appID: String
    private let socketPath: String?
    private var client: LocationClient?
    private var connecting: Task<LocationClient, any Error>?
    private var closed = false
    /// Lingering sessions a client of this connection took back: two clients share the connection, and a resume
    /// of a session the connection already owns would hand the same session to both.
    private var claimed: Set<String> = []

    init(appID: String, socketPath: String?) {
        self.appID = appID
        self.socketPath = socketPath
    }

    /// The connection, made on first use.
    func connection() async throws -> LocationClient {
        if closed { throw LocationClientError.closed }
        if let client { return client }
        if let connecting { return try await connecting.value }
        let (appID, socketPath) = (self.appID, self.socketPath)
        let task = Task { try await LocationClient.connect(appID: appID, socketPath: socketPath) }
        connecting = task
        defer { connecting = nil }
        let made = try await task.value
        if closed {
            await made.close()
            throw LocationClientError.closed
        }
        client = made
        return made
    }

    /// Whether the lingering session `id` is still free for a client of this connection to take; marks it taken.
    func claim(_ id: String) -> Bool {
        claimed.insert(id).inserted
    }

    /// Closes the connection without `Goodbye`: what sessions it still owns linger (SEMANTICS L3).
    func close() async {
        closed = true
        await client?.close()
        client = nil
    }
}
