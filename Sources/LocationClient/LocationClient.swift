/// An app's connection to locd, the location-session daemon: the Swift face of `io.locd.App`, shaped like Core
/// Location.
///
/// ```swift
/// let client = try await LocationClient.connect(appID: "com.example.maps")
/// let session = try await client.serviceSession(authorization: .whenInUse)
/// for try await diagnostic in session.diagnostics where !diagnostic.authorizationRequestInProgress {
///     print(diagnostic.authorizationDenied ? "denied: allow it in Settings" : "allowed")
///     break
/// }
/// for try await update in client.liveUpdates(.fitness) {
///     if let location = update.location {
///         print("at \(location.latitude), \(location.longitude)")
///         break
///     }
///     if update.authorizationDenied { break }
/// }
/// session.invalidate()
/// try await client.goodbye()
/// ```
///
/// The client keeps one control connection, which carries its calls and owns its sessions, and opens one more
/// connection per stream being iterated. When the daemon restarts, the client reconnects with backoff (see
/// ``ReconnectPolicy``), says `Hello` again with the same app state, takes back every session the app has not
/// invalidated and reopens every stream, so the app's loops carry on: a restart is invisible but for, at most,
/// a repeated update.
///
/// Call ``goodbye()`` when the app is done with location (its sessions end at once), or ``close()`` to disconnect
/// and leave them lingering for the daemon's relaunch window.
public final class LocationClient: Sendable {
    /// The app this client speaks for (its manifest's `id`).
    public let appID: String
    /// The socket the daemon listens on.
    public let socketPath: String
    let link: AppLink

    private init(link: AppLink) {
        self.link = link
        appID = link.appID
        socketPath = link.socketPath
    }

    /// Connects to locd and says `Hello` for the app.
    /// - Parameters:
    ///   - appID: the app's id, as its manifest in `apps.d` names it.
    ///   - socketPath: where locd listens; by default `LOCD_SOCKET`, else `$XDG_RUNTIME_DIR/locd/io.locd` when a
    ///     user daemon listens there, else the system daemon's `/run/locd/io.locd`.
    ///   - state: whether the app starts in the foreground or was launched in the background (SEMANTICS L1). Left
    ///     out, the client tells it from the platform (SEMANTICS L9): on a terminal, the app is in the foreground
    ///     while its process group is the terminal's foreground group, and the client follows job control (`&`,
    ///     Ctrl-Z and `bg`, `fg`) until the app calls ``setAppState(_:)``; without a terminal, `.foreground`.
    ///     A program started without a window (a `systemd --user` service, a timer) passes `.background`.
    ///   - reconnection: how to reconnect when the daemon restarts.
    /// - Throws: ``LocationClientError/daemonUnavailable(socketPath:reason:)`` when nothing listens on the socket;
    ///   ``LocationClientError/appUnknown(appID:message:)`` or ``LocationClientError/permissionDenied(message:)``
    ///   when the daemon refuses the app.
    public static func connect(
        appID: String,
        socketPath: String? = nil,
        state: AppState? = nil,
        reconnection: ReconnectPolicy = .default
    ) async throws -> LocationClient {
        let terminal = state == nil ? TerminalJob.controlling() : nil
        let client = try await open(
            appID: appID,
            socketPath: socketPath,
            state: state ?? terminal?.state ?? .foreground,
            reconnection: reconnection,
            process: nil
        )
        if let terminal { await client.link.follow(terminal) }
        return client
    }

    /// Connects to locd and says `Hello` for the app run by another process, as a broker does (SEMANTICS I8, I9):
    /// every `Hello` of the client — on its control connection, on each stream's connection, and on each
    /// reconnection after a daemon restart — names `process` and passes a pidfd of it, and locd checks the app's
    /// manifest against that process, not the caller. Only a process of a `[[broker]]` of locd.toml (its user, and
    /// its executable where one is given) may do this (SEMANTICS I13).
    /// - Parameters:
    ///   - appID: the app's id, as the broker derived it (SEMANTICS I12).
    ///   - socketPath: where locd listens (see ``connect(appID:socketPath:state:reconnection:)``).
    ///   - process: the process spoken for. The client keeps a duplicate of its pidfd until it is closed and gone;
    ///     the caller may close its own at once.
    ///   - description: the app's own words for a prompt, used when locd has no manifest for it (SEMANTICS I11):
    ///     one line of 1 to 1024 bytes without control characters.
    ///   - state: whether the app starts in the foreground or was launched in the background.
    ///   - reconnection: how to reconnect when the daemon restarts.
    /// - Throws: as ``connect(appID:socketPath:state:reconnection:)``;
    ///   ``LocationClientError/permissionDenied(message:)`` also when the caller is no broker, or the process has
    ///   exited or is not one the manifest allows.
    public static func connect(
        appID: String,
        socketPath: String? = nil,
        onBehalfOf process: ProcessReference,
        description: String? = nil,
        state: AppState = .foreground,
        reconnection: ReconnectPolicy = .default
    ) async throws -> LocationClient {
        try await open(
            appID: appID,
            socketPath: socketPath,
            state: state,
            reconnection: reconnection,
            process: try BrokeredProcess(process, description: description)
        )
    }

    /// Both `connect`s: the link, started (its first `Hello` answered).
    private static func open(
        appID: String,
        socketPath: String?,
        state: AppState,
        reconnection: ReconnectPolicy,
        process: BrokeredProcess?
    ) async throws -> LocationClient {
        let link = AppLink(
            appID: appID,
            socketPath: socketPath ?? DefaultSocket.path(),
            state: state,
            policy: reconnection,
            process: process
        )
        try await link.start()
        return LocationClient(link: link)
    }

    /// The app's state as this client last told the daemon.
    public var appState: AppState {
        get async { await link.appState }
    }

    /// Tells the daemon the app moved to the foreground or the background (SEMANTICS L1, L2).
    ///
    /// The state is also what the client says in `Hello` after a reconnection. From the first call on, the client
    /// no longer follows the terminal's job control for the app (SEMANTICS L9).
    public func setAppState(_ state: AppState) async throws {
        try await link.setAppState(state)
    }

    /// Tells the daemon the app is done: its sessions end now, with no relaunch window, and the client closes.
    public func goodbye() async throws {
        try await link.close(goodbye: true)
    }

    /// Disconnects without `Goodbye`: the app's sessions linger for the daemon's relaunch window, as they do when
    /// an app exits (SEMANTICS L3). Every stream of this client finishes.
    public func close() async {
        try? await link.close(goodbye: false)
    }
}
