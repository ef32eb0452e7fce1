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
    case event(AdminEvent)
    /// The session a `CreateSession` or `ResumeSession` called with `more` made or took back, sent as soon as it is
    /// decided, before it is stored; the call's final reply, once it is, acknowledges it (R11). The core never
    /// produces it: the shell's write-behind sends it ahead of the reply it holds.
    case decided(SessionView)
}

/// A write to the store (SEMANTICS §10).
package enum Persist: Hashable, Sendable {
    case record(appID: String, AuthorizationRecord)
    case locationServices(Bool)
    case session(SessionSnapshot)
    /// An ended session; its app too, the first half of the store's key (sessions are kept by app).
    case sessionRemoved(appID: String, SessionID)
    case app(AppSnapshot)
    /// The uid whose `Hello` made an app with no manifest of its own (F20); kept across boots, as the records are.
    case owner(appID: String, uid: UInt32)
    /// An app forgotten with nothing left to keep (F18, F20): its stored lifecycle, record, owner and Always use
    /// go, each by then as a new app's.
    case appRemoved(appID: String)
    case prompt(PromptSnapshot)
    case promptRemoved(PromptID)
    /// A monitored condition was added, replaced or changed state (U4).
    case condition(ConditionSnapshot)
    case conditionRemoved(appID: String, monitor: String, identifier: String)
    /// An app's background use under Always counted towards re-confirmation (P12); kept across boots.
    case alwaysUse(appID: String, Span)

    /// Whether the write is an authorization decision that must be durable before its reply (R1).
    package var isDecision: Bool {
        switch self {
        case .record, .locationServices: true
        default: false
        }
    }
}
