/// Everything the store keeps of the core, and what a restart restores from (SEMANTICS §10).
package struct CoreSnapshot: Hashable, Codable, Sendable {
    package var locationServicesEnabled: Bool
    /// Records by user's app (H1).
    package var records: [AppKey: AuthorizationRecord]
    package var apps: [AppSnapshot]
    package var sessions: [SessionSnapshot]
    package var prompts: [PromptSnapshot]
    /// Monitored conditions, kept across boots like records (U4), in the order they were added.
    package var conditions: [ConditionSnapshot]
    /// Background use under Always counted per app (P12), kept across boots like records; absent is zero.
    package var alwaysUse: [AppKey: Span]
    /// The administrator's settings of apps for every user (H5), by app id.
    package var policies: [String: AppPolicy]
    /// The users who turned location services off for themselves (H6).
    package var usersWithServicesOff: Set<UInt32>

    package init(
        locationServicesEnabled: Bool = true,
        records: [AppKey: AuthorizationRecord] = [:],
        apps: [AppSnapshot] = [],
        sessions: [SessionSnapshot] = [],
        prompts: [PromptSnapshot] = [],
        conditions: [ConditionSnapshot] = [],
        alwaysUse: [AppKey: Span] = [:],
        policies: [String: AppPolicy] = [:],
        usersWithServicesOff: Set<UInt32> = []
    ) {
        self.locationServicesEnabled = locationServicesEnabled
        self.records = records
        self.apps = apps
        self.sessions = sessions
        self.prompts = prompts
        self.conditions = conditions
        self.alwaysUse = alwaysUse
        self.policies = policies
        self.usersWithServicesOff = usersWithServicesOff
    }
}

/// An app's lifecycle and its deadlines, on `CLOCK_BOOTTIME` (R2).
package struct AppSnapshot: Hashable, Codable, Sendable {
    package var appID: String
    package var state: AppState
    package var graceEnds: Instant?
    package var relaunchEnds: Instant?
    package var inUseAtTermination: Bool

    /// The app's user (H1); `nil` for an app of no user.
    package var user: UInt32?

    package init(
        appID: String,
        state: AppState,
        graceEnds: Instant?,
        relaunchEnds: Instant?,
        inUseAtTermination: Bool,
        user: UInt32?
    ) {
        self.appID = appID
        self.state = state
        self.graceEnds = graceEnds
        self.relaunchEnds = relaunchEnds
        self.inUseAtTermination = inUseAtTermination
        self.user = user
    }
}

/// A session as stored; implicit sessions are never stored (they end with their stream).
package struct SessionSnapshot: Hashable, Codable, Sendable {
    package var id: SessionID
    package var appID: String
    package var kind: SessionKind
    package var requirement: Requirement
    package var purposeKey: String?
    package var ownerPID: Int32
    package var lingerEnds: Instant?

    /// The app's user (H1); `nil` for an app of no user.
    package var user: UInt32?

    package init(
        id: SessionID,
        appID: String,
        kind: SessionKind,
        requirement: Requirement,
        purposeKey: String?,
        ownerPID: Int32,
        lingerEnds: Instant?,
        user: UInt32?
    ) {
        self.id = id
        self.appID = appID
        self.kind = kind
        self.requirement = requirement
        self.purposeKey = purposeKey
        self.ownerPID = ownerPID
        self.lingerEnds = lingerEnds
        self.user = user
    }
}

/// A pending prompt as stored; `raisedAt` is set once it heads its app's queue.
package struct PromptSnapshot: Hashable, Codable, Sendable {
    package var id: PromptID
    package var appID: String
    package var kind: PromptKind
    package var purposeKey: String?
    package var raisedAt: Instant?

    /// The app's user (H1); `nil` for an app of no user.
    package var user: UInt32?

    package init(
        id: PromptID,
        appID: String,
        kind: PromptKind,
        purposeKey: String?,
        raisedAt: Instant?,
        user: UInt32?
    ) {
        self.id = id
        self.appID = appID
        self.kind = kind
        self.purposeKey = purposeKey
        self.raisedAt = raisedAt
        self.user = user
    }
}

/// A monitored condition as stored (U4): named by app, monitor and identifier, with its last state.
///
/// Conditions are not tagged with the boot id: like CLMonitor's, they outlive reboots. The state is kept
/// too, so that `MonitorEvents` after a restart reports where the app was, not `unknown`.
package struct ConditionSnapshot: Hashable, Codable, Sendable {
    package var appID: String
    package var monitor: String
    package var identifier: String
    package var condition: CircularCondition
    package var state: ConditionState
    /// Unix time of the fix that set ``state``.
    package var date: Double?
    /// The order of adding across the app's monitors; it decides which 20 are monitored.
    package var position: Int64

    /// The app's user (H1); `nil` for an app of no user.
    package var user: UInt32?

    package init(
        appID: String,
        monitor: String,
        identifier: String,
        condition: CircularCondition,
        state: ConditionState,
        date: Double?,
        position: Int64,
        user: UInt32?
    ) {
        self.appID = appID
        self.monitor = monitor
        self.identifier = identifier
        self.condition = condition
        self.state = state
        self.date = date
        self.position = position
        self.user = user
    }
}

extension AppSnapshot {
    /// The user's app it is of (H1).
    package var app: AppKey { AppKey(appID, user: user) }
}

extension SessionSnapshot {
    package var app: AppKey { AppKey(appID, user: user) }
}

extension PromptSnapshot {
    package var app: AppKey { AppKey(appID, user: user) }
}

extension ConditionSnapshot {
    package var app: AppKey { AppKey(appID, user: user) }
}
