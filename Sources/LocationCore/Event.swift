/// Everything that can happen to the core; each arrives with the current ``Instant``.
package enum Event: Sendable {
    /// A connection was accepted; `pid` is the peer's process (from `SO_PEERCRED`), used by `Goodbye`, and `uid`
    /// its uid, whose apps its `Hello` binds to (H1); `nil` when unknown. `administrator`: whether the peer may
    /// administer (I3), so that its `io.locd.Admin` calls reach every user's apps, not only its own (H4).
    case connected(ClientID, pid: Int32, uid: UInt32?, administrator: Bool = true)
    /// A method call on a connection; streaming calls keep their ``CallID`` as the stream's name.
    case call(CallID, Call)
    /// A connection closed (without `Goodbye`, unless it had said it).
    case disconnected(ClientID)
    /// A timer fired: re-check every deadline against the current time (L6).
    case deadlineReached
    /// The running provider delivered a fix (U1, U3); stationary (D10) is derived from the fixes.
    case fix(Fix)
    /// The provider has no fix: no signal, gpsd mode < 2, or its source went away (D9).
    case fixLost
    /// The store started failing writes, or recovered; monitors report `persistenceUnavailable` (U4).
    case storeHealth(healthy: Bool)
    /// Manifests and configuration were reloaded (M2); the shell has validated them.
    case reload(manifests: [Manifest], configuration: CoreConfiguration)
}

/// The methods of `io.locd.App` and `io.locd.Admin` that reach the core, with decoded parameters.
package enum Call: Sendable {
    // io.locd.App
    case hello(appID: String, state: RunningState?)
    /// `Hello` from a broker for the process `process` (I8), which the shell has checked (I9); `description` is
    /// the app's own usage description, read only for an app with no manifest (I11); `uid` is the real uid of
    /// `process`, which the shell read in that check and which owns an app with no manifest this `Hello` makes
    /// (F20); `nil` until the shell has checked the call.
    case brokeredHello(appID: String, state: RunningState?, process: Int32, description: String?, uid: UInt32?)
    case goodbye
    case setAppState(RunningState)
    case getAuthorization
    case watchAuthorization
    case requestAuthorization(RequestLevel)
    case requestTemporaryFullAccuracy(purposeKey: String)
    /// `more`: the caller asked with `more`, so it hears the session as soon as it is decided, before it is stored
    /// (R11).
    case createSession(Requirement, purposeKey: String?, more: Bool = false)
    /// `more`: as for ``createSession(_:purposeKey:more:)`` (R11).
    case resumeSession(String, more: Bool = false)
    case invalidateSession(String)
    case listSessions
    case sessionDiagnostics(String)
    case beginBackgroundActivity
    /// `accuracy: reduced` asks for approximate locations even with a precise grant (U5); `session`, one of the
    /// app's sessions, ends the stream with a final reply when that session ends (U18).
    case liveUpdates(LiveConfiguration, accuracy: PromptAccuracy? = nil, session: String? = nil)
    case monitorEvents(monitor: String)
    case addCondition(monitor: String, identifier: String, condition: CircularCondition)
    case removeCondition(monitor: String, identifier: String)
    // io.locd.Admin
    // Each names the user whose app it means (`user`), which only an administrator may; a caller that may not
    // administer reaches its own uid's apps (H4).
    case status
    case listApps(user: UInt32?)
    case adminListSessions(appID: String?, user: UInt32?)
    /// An administrator naming no user sets the app for every user (H5).
    case setAuthorization(appID: String, setting: AuthorizationSetting?, precise: Bool?, user: UInt32?)
    /// An administrator's call turns the machine's switch; any other caller's, its own (H6).
    case setLocationServices(Bool)
    case adminSetAppState(appID: String, state: RunningState, user: UInt32?)
    case locationButton(appID: String, user: UInt32?)
    /// A desktop source's report of what is in front (L11), or that it cannot read the desktop (`failure`).
    case setDesktop(name: String, front: [FrontWindow], locked: Bool, failure: String?, user: UInt32?)
    /// The caller's own user's prompts (H7).
    case prompts
    /// An administrator's agent offered every user's prompts, as a broker that hands each to that user's own agent
    /// is (H7).
    case promptsOfEveryone
    /// An administrator's every-user agent that can answer only these users' prompts: it is offered, and counts as an
    /// agent for, theirs alone, as locd-geoclue for the users that have a GeoClue agent it asks (H7, P14).
    case promptsOfUsers(Set<UInt32>)
    case answerPrompt(id: String, answer: PromptAnswer, accuracy: PromptAccuracy?)
    case watch
    /// Forgets every app with no manifest of its own that `owner` made (F20).
    case forgetApps(owner: AppOwner)

    /// Whether the call is answered with a stream (`more`).
    package var isStreaming: Bool {
        switch self {
        case .watchAuthorization, .sessionDiagnostics, .liveUpdates, .monitorEvents, .prompts, .promptsOfEveryone,
            .promptsOfUsers, .watch:
            true
        default: false
        }
    }

    /// Whether the call belongs to `io.locd.App` and so needs `Hello` first.
    package var needsHello: Bool {
        switch self {
        case .hello, .brokeredHello, .status, .listApps, .adminListSessions, .setAuthorization, .setLocationServices,
            .adminSetAppState, .setDesktop, .locationButton, .prompts, .promptsOfEveryone, .promptsOfUsers,
            .answerPrompt, .watch,
            .forgetApps:
            false
        default: true
        }
    }
}
