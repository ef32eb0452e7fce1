/// A prompt's identity for queueing and suppression: its kind, and for accuracy its purpose key (§5.2).
enum PromptKey: Hashable, Sendable {
    case authorization
    case alwaysUpgrade
    case alwaysReconfirm
    case accuracy(String)

    var kind: PromptKind {
        switch self {
        case .authorization: .authorization
        case .alwaysUpgrade: .alwaysUpgrade
        case .alwaysReconfirm: .alwaysReconfirm
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
        case .alwaysReconfirm: self = .alwaysReconfirm
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

/// An app's sessions counted by requirement, inline (an array would be one more allocation to reach).
struct RequirementCounts: Equatable {
    var none = 0
    var whenInUse = 0
    var always = 0
}

/// The manifest's answers to the questions asked on every session (S2, S11, M1).
struct Declarations {
    var hasManifest = false
    /// A manifest the administrator installed, not one locd stood in (M3, I11): an app with one is never
    /// forgotten (F18).
    var ownManifest = false
    var whenInUse = false
    var always = false
    var optedOut = false
    /// No window: never in front, asks for Always (L14).
    var backgroundOnly = false

    init(_ manifest: Manifest?) {
        guard let manifest else { return }
        hasManifest = true
        ownManifest = !manifest.isStandIn
        whenInUse = manifest.whenInUseUsageDescription != nil
        always = manifest.alwaysAndWhenInUseUsageDescription != nil
        optedOut = manifest.requireExplicitServiceSession
        backgroundOnly = manifest.backgroundOnly
    }

    /// Whether a session of `requirement` without a purpose key passes S2 (``Manifest/missingDescription(for:)``).
    func allow(_ requirement: Requirement) -> Bool {
        requirement < .whenInUse || (whenInUse && (requirement != .always || always))
    }
}

/// Everything the core knows of one app.
///
/// The fields every session event reads come first and the manifest last: Swift lays a struct out in
/// declaration order, and with a thousand apps the hot part of each should share few cache lines.
struct AppRuntime {
    /// Session counts by requirement, and of explicit sessions, so layering questions are O(1).
    var requirementCounts = RequirementCounts()
    var explicitDemanding = 0
    var explicitNone = 0
    /// How many of its sessions linger, so that a new session looks for ones to cover only when there are some (L4).
    var lingeringSessions = 0
    /// The slots of its sessions (``SessionTable``), in creation order.
    var sessionSlots = SessionSlots()
    var state: AppState = .notRunning
    /// In use (L2), as last computed; changes drive L5 and the lifting of suppression.
    var inUse = false
    /// Whether the event being handled changed something its sessions and streams read: it is
    /// re-evaluated when the event ends. A flag here, and the handle in a list, so that marking is O(1).
    var isDirty = false
    /// What the rules read of the manifest on every call, as plain flags: reading the manifest out of
    /// the app table copies it.
    private(set) var declares: Declarations
    var record = AuthorizationRecord()
    /// Prompts in queue order; the first is the head (S9).
    var queue: [PromptID] = []
    var suppressed: Set<PromptKey> = []
    /// The end of the background grace (L2), while the app is in the background after the foreground.
    var graceEnds: Instant?
    /// The end of the relaunch window (L3), while terminated.
    var relaunchEnds: Instant?
    /// The end of the window for clients to return after a daemon restart (L7, R3).
    var restartEnds: Instant?
    var inUseAtTermination = false
    /// What the app last said of itself (`Hello`'s state or `SetAppState`, L1), which a desktop that decides may
    /// overrule (L11).
    var claim: RunningState?
    /// The desktop whose overruling of the app's `foreground` was logged, so it is logged once (L11).
    var overruledBy: String?
    /// A location button's one-time grant is in force (P11): sessions and streams up to `whenInUse` need no
    /// usage description while it lasts (S2, seed 002).
    var buttonGrant = false
    /// Background use under Always counted so far (P12), stored; the running stretch started at ``alwaysUseSince``.
    var alwaysUse = Span(nanoseconds: 0)
    var alwaysUseSince: Instant?
    /// When the count will reach `always-reconfirm`, while it runs (P12).
    var reconfirmAt: Instant?
    var clients: [ClientID] = []
    /// `LiveUpdates` and `MonitorEvents` streams.
    var locationStreams: [CallID] = []
    var authorizationWatchers: [CallID] = []
    var requests: [PendingRequest] = []
    /// Ids of restored sessions that ended, so calls naming them answer `SessionInvalidated` (S3); this
    /// daemon's own ended sessions are known from the session table (``LocationCore/wasMinted(_:by:)``).
    var endedSessions: Set<SessionID> = []
    /// The authorization last shown, to report changes once.
    var lastAuthorization: AuthorizationView?
    let appID: String
    /// The user whose app this is (H1), who owns it (F20); `nil` for the app's entry of no user (H2).
    let user: UInt32?
    /// Given by ``AppTable`` when the app is added, never to another app: what the session table remembers
    /// an ended session's app by (S3, F9), where a forgotten app's handle may be given again (F18).
    var serial: UInt32 = 0
    var manifest: Manifest? {
        get { sharedManifest?.manifest }
        set {
            sharedManifest = newValue.map(SharedManifest.init)
            declares = Declarations(newValue)
        }
    }
    /// The manifest behind one reference: a copy of the runtime (a copy of the app table, a copy of the core) then
    /// retains one object instead of each of the manifest's strings and lists.
    private var sharedManifest: SharedManifest?

    init(appID: String, user: UInt32?, manifest: Manifest?) {
        self.appID = appID
        self.user = user
        self.sharedManifest = manifest.map(SharedManifest.init)
        self.declares = Declarations(manifest)
    }

    var key: AppKey { AppKey(appID, user: user) }

    /// The strongest requirement among the app's sessions (S4).
    var effectiveRequirement: Requirement? {
        if requirementCounts.always > 0 { return .always }
        if requirementCounts.whenInUse > 0 { return .whenInUse }
        if requirementCounts.none > 0 { return .noAuthorization }
        return nil
    }

    /// What the app declares; an app whose manifest a reload removed declares nothing, so its next
    /// request fails per S2 (M2) instead of passing as an unknown app.
    var declared: Manifest { manifest ?? Manifest(appID: appID) }

    /// What the app's other sessions and streams read of its sessions (S4, S11, D7): only its change re-evaluates them.
    var layering: (effective: Requirement?, explicitDemanding: Bool, explicitNone: Bool) {
        (effectiveRequirement, explicitDemanding > 0, explicitNone > 0)
    }

    var optedOutOfImplicitSessions: Bool { declares.optedOut }

    var isRunning: Bool { state == .foreground || state == .background }

    mutating func count(_ kind: SessionKind, _ requirement: Requirement, _ delta: Int) {
        switch requirement {
        case .noAuthorization: requirementCounts.none += delta
        case .whenInUse: requirementCounts.whenInUse += delta
        case .always: requirementCounts.always += delta
        }
        if kind == .explicit {
            if requirement >= .whenInUse { explicitDemanding += delta } else { explicitNone += delta }
        }
    }

    /// S2: why the app may not create a session of `requirement` (and `purposeKey`), if it may not.
    func declarationFailure(for requirement: Requirement, purposeKey: String?) -> LocationError? {
        guard let manifest else { return declared.declarationFailure(for: requirement, purposeKey: purposeKey) }
        // P11: under a location button's grant a session up to whenInUse needs no description (seed 002).
        if buttonGrant && requirement <= .whenInUse {
            return manifest.declarationFailure(for: .noAuthorization, purposeKey: purposeKey)
        }
        return manifest.declarationFailure(for: requirement, purposeKey: purposeKey)
    }
}

/// A manifest that never changes, shared by every copy of the runtime that holds it.
final class SharedManifest: Sendable {
    let manifest: Manifest
    init(_ manifest: Manifest) { self.manifest = manifest }
}
