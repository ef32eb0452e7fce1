import LocationClient

/// One D-Bus peer's connection to locd as one app, made at the peer's first `Start` and shared by its clients of that
/// app: a brokered `Hello` for the peer's process (SEMANTICS I8, I9), as the app id derived from that process, else
/// the client's `DesktopId` (I12). locd checks the app's manifest against the peer's process, not locd-geoclue; for
/// an app with no manifest it prompts with the description from the app's `.desktop` file (I11).
///
/// Closing it never says `Goodbye`, which would end at once the sessions of every connection speaking for the peer's
/// process, lingering ones included (SEMANTICS L3, I8). A peer's sessions are ended one by one (`Stop`,
/// `DeleteClient`) before the connection closes, or left to linger when the peer left the bus.
actor LocdApp {
    let appID: String
    private let socketPath: String?
    /// The peer's process: its pid and pidfd, which every `Hello` of the connection passes.
    private let process: PeerProcess
    private var client: LocationClient?
    private var connecting: Task<LocationClient, any Error>?
    private var closed = false
    /// Lingering sessions a client of this connection took back: two clients share the connection, and a resume
    /// of a session the connection already owns would hand the same session to both.
    private var claimed: Set<String> = []

    init(appID: String, socketPath: String?, process: PeerProcess) {
        self.appID = appID
        self.socketPath = socketPath
        self.process = process
    }

    /// The connection, made on first use.
    func connection() async throws -> LocationClient {
        if closed { throw LocationClientError.closed }
        if let client { return client }
        if let connecting { return try await connecting.value }
        let (appID, socketPath, process) = (self.appID, self.socketPath, self.process)
        let task = Task {
            try await LocationClient.connect(
                appID: appID,
                socketPath: socketPath,
                onBehalfOf: process.reference,
                description: DesktopDescription().description(of: appID)
            )
        }
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
