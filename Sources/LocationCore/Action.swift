/// What the shell must do after an event, in order: persist first, then messages.
package enum Action: Sendable {
    /// The reply to a call.
    case reply(CallID, Reply)
    /// The error reply to a call.
    case fail(CallID, LocationError)
    /// A `continues` reply on an open stream.
    case emit(CallID, StreamMessage)
    /// The final reply of a stream (`nil`: the stream just closes, its connection being gone).
    case end(CallID, StreamMessage?)
    /// A write to the store. Records and the global switch are decisions: durable before any later action.
    case persist(Persist)
    /// Wake the core at this instant (or never, for `nil`); replaces any earlier timer.
    case armTimer(Instant?)
    /// Start or stop the location provider (U3).
    case provider(running: Bool)
    /// P14: a prompt of this user's app was dismissed because no agent was there to ask; the shell tells the
    /// administrator what to start.
    case nobodyToAsk(AppKey)
    /// The app said it is in the foreground and its desktop says it is not: logged once per app and desktop (L11).
    case overruled(AppKey, desktop: String)
    /// An app with no window had a While Using record, carried over to Always: logged (L14).
    case carriedOver(AppKey)
    /// The connection speaks for this user's app from now on (`nil`: for none, after `Goodbye` or once its app is
    /// forgotten): while a decision of that app is not stored, what goes to the connection waits for it (R12).
    case speaksFor(ClientID, AppKey?)
    /// A refusal the log tells of as it tells the shell's own (I6): the shell logs it; the call's error answers it.
    case refused(CallID, Refusal)
}

/// What the log says of a call the core refused (I6).
package enum Refusal: Hashable, Sendable {
    /// H4: a call beyond its caller's reach (another user's apps named, an administrators' method); `uid`: the
    /// caller's, `nil` when the kernel did not say.
    case denied(reason: String, uid: UInt32?)
    /// F20: a `Hello` that would make the app `appID` for `uid`, who has `maximum` apps already (`max-apps-per-uid`);
    /// `process`: the process a broker said it for, `nil` for a process's own `Hello`.
    case appLimit(appID: String, uid: UInt32, process: Int32?, maximum: Int)
}

/// The parameters of a reply.
package enum Reply: Hashable, Sendable {
    case empty
    case hello(authorization: AuthorizationView, lingeringSessions: [SessionView])
    case authorization(AuthorizationView)
    case session(SessionView)
    case sessions([SessionView])
    case apps([AppView])
    case status(CoreStatus)
    /// How many apps `Admin.ForgetApps` forgot (F20).
    case forgotten(Int)
}

/// One message on a stream.
package enum StreamMessage: Hashable, Sendable {
    case authorization(AuthorizationView)
    case diagnostic(DiagnosticMask, ended: Bool)
    /// A `LiveUpdates` update: its flags, and the location when U1 lets one through (quantised per U2).
    case update(DiagnosticMask, location: Fix? = nil)
    /// A monitor stream's diagnostics changed (an event about the monitor, not one condition).
    case monitor(DiagnosticMask)
    /// One condition's state and flags (U4).
    case monitorCondition(MonitorEventView)
    case prompt(PromptView)
    case withdrawn(PromptID)
    /// A `Prompts` stream narrowed to some users is counted as their agent from now on: its first message, so that a
    /// broker replacing its stream closes the old one only after (H7).
    case agentCounted
    case event(AdminEvent)
    /// The session a `CreateSession` or `ResumeSession` called with `more` made or took back, sent as soon as it is
    /// decided, before it is stored; the call's final reply, once it is, acknowledges it (R11). The core puts it just
    /// before that reply, only when the event writes no decision; it waits for no write of its own event.
    case decided(SessionView)
}

/// A write to the store (SEMANTICS §10). Everything kept per app is kept per user's app (H1): an ``AppKey`` names the
/// app and its user, ``AppKey/noUser(_:)`` an app of no user.
package enum Persist: Hashable, Sendable {
    case record(AppKey, AuthorizationRecord)
    case locationServices(Bool)
    /// A user turned location services off or on for themselves (H6).
    case userLocationServices(uid: UInt32, enabled: Bool)
    /// An administrator's setting of an app for every user (H5); `nil`: none any more.
    case policy(appID: String, AppPolicy?)
    case session(SessionSnapshot)
    /// An ended session; its app too, the first half of the store's key (sessions are kept by app).
    case sessionRemoved(AppKey, SessionID)
    case app(AppSnapshot)
    /// An app forgotten with nothing left to keep (F18, F20): its stored lifecycle, record and Always use go,
    /// each by then as a new app's.
    case appRemoved(AppKey)
    case prompt(PromptSnapshot)
    case promptRemoved(PromptID)
    /// A monitored condition was added, replaced or changed state (U4).
    case condition(ConditionSnapshot)
    case conditionRemoved(AppKey, monitor: String, identifier: String)
    /// An app's background use under Always counted towards re-confirmation (P12); kept across boots.
    case alwaysUse(AppKey, Span)

    /// Whether the write is an authorization decision that must be durable before its reply (R1).
    package var isDecision: Bool {
        switch self {
        case .record, .locationServices, .userLocationServices, .policy: true
        default: false
        }
    }
}

extension Persist {
    /// The user's app a write of an app's row names, if it names one.
    package var app: AppKey? {
        switch self {
        case .record(let app, _), .sessionRemoved(let app, _), .appRemoved(let app), .conditionRemoved(let app, _, _),
            .alwaysUse(let app, _):
            app
        case .app(let app): app.app
        case .session(let session): session.app
        case .prompt(let prompt): prompt.app
        case .condition(let condition): condition.app
        case .locationServices, .userLocationServices, .policy, .promptRemoved: nil
        }
    }
}
