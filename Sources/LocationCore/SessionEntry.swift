/// A live session: explicit, implicit, background activity, or lingering (no owner).
struct SessionEntry {
    let id: SessionID
    let appID: String
    let kind: SessionKind
    let requirement: Requirement
    let purposeKey: String?
    var owner: ClientID?
    /// The process that owned it last; a process never covers its own lingering sessions (L4).
    var ownerPID: Int32
    var lingerEnds: Instant?
    /// The stream an implicit session belongs to (S10).
    var implicitStream: CallID?
    var diagnosticStreams: [CallID] = []
    /// Mask and state as last reported, to report changes once.
    var mask = DiagnosticMask()
    var state: SessionState = .limited
    /// Restored after a daemon restart and not yet taken back: its owner is only reconnecting (L7).
    var restored = false

    var snapshot: SessionSnapshot {
        SessionSnapshot(
            id: id,
            appID: appID,
            kind: kind,
            requirement: requirement,
            purposeKey: purposeKey,
            ownerPID: ownerPID,
            lingerEnds: lingerEnds
        )
    }

    /// Whether this session, new or resumed, covers a lingering one (L4, S13).
    func covers(_ lingering: SessionEntry) -> Bool {
        guard (kind == .backgroundActivity) == (lingering.kind == .backgroundActivity) else { return false }
        guard requirement >= lingering.requirement else { return false }
        return lingering.purposeKey == nil || lingering.purposeKey == purposeKey
    }
}

/// A pending prompt of one app.
struct PromptEntry {
    let id: PromptID
    let appID: String
    let key: PromptKey
    /// Set when it becomes the head of its queue (S9).
    var raisedAt: Instant?
    var timeoutAt: Instant?

    var snapshot: PromptSnapshot {
        PromptSnapshot(
            id: id,
            appID: appID,
            kind: key.kind,
            purposeKey: key.purposeKey,
            raisedAt: raisedAt
        )
    }
}

/// One open stream.
struct StreamEntry {
    enum Kind {
        case authorization(String)
        case sessionDiagnostics(SessionID)
        case liveUpdates(String, implicit: SessionID?)
        case monitorEvents(String, implicit: SessionID?)
        case prompts
        case watch
    }

    var kind: Kind
    var lastMask: DiagnosticMask?
    var lastAuthorization: AuthorizationView?
}

/// One connection.
struct ClientEntry {
    let pid: Int32
    var appID: String?
    var streams: [CallID] = []
}
