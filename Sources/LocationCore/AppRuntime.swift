/// A prompt's identity for queueing and suppression: its kind, and for accuracy its purpose key (§5.2).
enum PromptKey: Hashable, Sendable {
    case authorization
    case alwaysUpgrade
    case accuracy(String)

    var kind: PromptKind {
        switch self {
        case .authorization: .authorization
        case .alwaysUpgrade: .alwaysUpgrade
        case .accuracy: .temporaryFullAccuracy
        }
    }

    var purposeKey: String? {
        if case .accuracy(let key) = self { return key }
        return nil
    }

    init(kind: PromptKind, purposeKey: String?) {
        switch kind {
        case .authorization: self = .authorization
        case .alwaysUpgrade: self = .alwaysUpgrade
        case .temporaryFullAccuracy: self = .accuracy(purposeKey ?? "")
        }
    }
}

/// A legacy request call (P10) that still calls for its prompt.
struct PendingRequest: Hashable {
    var client: ClientID
    var key: PromptKey
    var always: Bool
}

/// Everything the core knows of one app.
struct AppRuntime {
    let appID: String
    var manifest: Manifest?
    var record = AuthorizationRecord()
    var state: AppState = .notRunning
    /// The end of the background grace (L2), while the app is in the background after the foreground.
    var graceEnds: Instant?
    /// The end of the relaunch window (L3), while terminated.
    var relaunchEnds: Instant?
    /// The end of the window for clients to return after a daemon restart (L7, R3).
    var restartEnds: Instant?
    var inUseAtTermination = false
    /// In use (L2), as last computed; changes drive L5 and the lifting of suppression.
    var inUse = false
    var clients: [ClientID] = []
    /// Sessions in creation order.
    var sessions: [SessionID] = []
    /// How many of them linger, so that creating a session looks for ones to cover only when there are some (L4).
    var lingeringSessions = 0
    /// `LiveUpdates` and `MonitorEvents` streams.
    var locationStreams: [CallID] = []
    var authorizationWatchers: [CallID] = []
    /// Prompts in queue order; the first is the head (S9).
    var queue: [PromptID] = []
    var suppressed: Set<PromptKey> = []
    var requests: [PendingRequest] = []
    /// Ids of sessions that ended, so calls naming them answer `SessionInvalidated` (S3).
    var endedSessions: Set<SessionID> = []
    /// The authorization last shown, to report changes once.
    var lastAuthorization: AuthorizationView?
    /// Session counts by requirement, and of explicit sessions, so layering questions are O(1).
    var requirementCounts = [0, 0, 0]
    var explicitDemanding = 0
    var explicitNone = 0

    init(appID: String, manifest: Manifest?) {
        self.appID = appID
        self.manifest = manifest
    }

    /// The strongest requirement among the app's sessions (S4).
    var effectiveRequirement: Requirement? {
        if requirementCounts[2] > 0 { return .always }
        if requirementCounts[1] > 0 { return .whenInUse }
        if requirementCounts[0] > 0 { return .noAuthorization }
        return nil
    }

    /// What the app declares; an app whose manifest a reload removed declares nothing, so its next
    /// request fails per S2 (M2) instead of passing as an unknown app.
    var declared: Manifest { manifest ?? Manifest(appID: appID) }

    /// What the app's other sessions and streams read of its sessions (S4, S11, D7): only its change re-evaluates them.
    var layering: (effective: Requirement?, explicitDemanding: Bool, explicitNone: Bool) {
        (effectiveRequirement, explicitDemanding > 0, explicitNone > 0)
    }

    var optedOutOfImplicitSessions: Bool { manifest?.requireExplicitServiceSession ?? false }

    var isRunning: Bool { state == .foreground || state == .background }

    mutating func count(_ session: SessionEntry, _ delta: Int) {
        switch session.requirement {
        case .noAuthorization: requirementCounts[0] += delta
        case .whenInUse: requirementCounts[1] += delta
        case .always: requirementCounts[2] += delta
        }
        if session.kind == .explicit {
            if session.requirement >= .whenInUse { explicitDemanding += delta } else { explicitNone += delta }
        }
    }
}
