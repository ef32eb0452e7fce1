/// A live session: explicit, implicit, background activity, or lingering (no owner).
struct SessionEntry {
    let id: SessionID
    /// Its app's handle in ``AppTable``.
    let app: Int
    let appID: String
    /// Its app's user (H1).
    let user: UInt32?
    let kind: SessionKind
    let requirement: Requirement
    let purposeKey: String?
    var owner: ClientID?
    /// The process that owned it last; a process never covers its own lingering sessions (L8).
    var ownerPID: Int32
    var lingerEnds: Instant?
    /// The stream an implicit session belongs to (S10).
    var implicitStream: CallID?
    /// The `LiveUpdates` streams bound to it, which end with it (U18).
    var boundStreams: [CallID] = []
    /// Its `SessionDiagnostics` streams, each with the mask it last sent: kept here rather than in the
    /// stream's ``StreamEntry`` so that re-evaluating a session reaches its streams without a lookup.
    var diagnosticStreams = DiagnosticStreams()
    /// Mask and state as last reported, to report changes once.
    var mask = DiagnosticMask()
    var state: SessionState = .limited
    /// Restored after a daemon restart and not yet taken back: its owner is only reconnecting (L7).
    var restored = false

    /// What a vacant slot of ``SessionTable`` holds: no app has handle -1.
    static let vacant = SessionEntry(
        id: SessionID(epoch: 0, number: 0),
        app: -1,
        appID: "",
        user: nil,
        kind: .explicit,
        requirement: .noAuthorization,
        purposeKey: nil,
        owner: nil,
        ownerPID: 0
    )

    var isLive: Bool { app >= 0 }

    /// Records the mask and state just reported, on the session and its diagnostics streams (D11).
    mutating func report(_ mask: DiagnosticMask, _ state: SessionState) {
        self.mask = mask
        self.state = state
        diagnosticStreams.setLastMask(mask)
    }

    var snapshot: SessionSnapshot {
        SessionSnapshot(
            id: id,
            appID: appID,
            kind: kind,
            requirement: requirement,
            purposeKey: purposeKey,
            ownerPID: ownerPID,
            lingerEnds: lingerEnds,
            user: user
        )
    }

    /// Whether this new session covers a lingering one (L4, S13); a resumed one covers nothing.
    func covers(_ lingering: SessionEntry) -> Bool {
        guard (kind == .backgroundActivity) == (lingering.kind == .backgroundActivity) else { return false }
        guard requirement >= lingering.requirement else { return false }
        return lingering.purposeKey == nil || lingering.purposeKey == purposeKey
    }
}

/// A pending prompt of one app.
struct PromptEntry {
    let id: PromptID
    /// Its app's handle in ``AppTable``.
    let app: Int
    let appID: String
    /// Its app's user (H1), whose agents are offered it (H7).
    let user: UInt32?
    let key: PromptKey
    /// Set when it becomes the head of its queue (S9).
    var raisedAt: Instant?
    var timeoutAt: Instant?
    /// P14: when it is dismissed unless an agent it is offered to opens first; not stored, a restart sets it again.
    var agentWaitEnds: Instant?

    var snapshot: PromptSnapshot {
        PromptSnapshot(
            id: id,
            appID: appID,
            kind: key.kind,
            purposeKey: key.purposeKey,
            raisedAt: raisedAt,
            user: user
        )
    }
}

/// One open stream.
struct StreamEntry {
    /// What the stream reports; an app is named by its handle in ``AppTable``.
    enum Kind {
        case authorization(Int)
        case sessionDiagnostics(SessionID)
        case liveUpdates(Int, implicit: SessionID?)
        case monitorEvents(Int, implicit: SessionID?)
        case prompts
        case watch
    }

    var kind: Kind
    /// The mask a location stream last sent; a diagnostics stream's is kept by its session (``DiagnosticStream``).
    var lastMask: DiagnosticMask?
    var lastAuthorization: AuthorizationView?
    /// A `LiveUpdates` stream's filters, quantiser and throttle (U1, U2).
    var delivery: LocationDelivery?
    /// The ``LocationCore/eventNumber`` of the event that last refreshed this location stream.
    var refreshed: UInt64 = 0
    /// The session a `LiveUpdates` stream is bound to: it ends when that session ends (U18).
    var boundTo: SessionID?
}

/// One connection.
struct ClientEntry {
    /// The process the client speaks for: the peer's, or the one a broker named in `Hello` (I8).
    var pid: Int32
    /// The peer's uid (`SO_PEERCRED`): whose apps its `Hello` binds to (H1), and whose apps its `io.locd.Admin`
    /// calls reach when it may not administer (H4).
    var uid: UInt32?
    /// Whether the peer may administer (I3): its `io.locd.Admin` calls reach every user's apps (H4).
    var administrator: Bool
    /// The handle of the app it said `Hello` for.
    var app: Int?
    var streams: [CallID] = []
    /// A broker's connection, speaking for a process of its app (I8): its app's prompts say so (N6).
    var brokered = false
    /// The user whose desktop source this connection is, while it is (L11).
    var desktopOf: UInt32?
}
