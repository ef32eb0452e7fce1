/// An authorization record as replies show it: overlaid (A1) and labelled (A2).
package struct AuthorizationView: Hashable, Codable, Sendable {
    package var status: AuthorizationStatus
    package var accuracy: AccuracyAuthorization
    package var provisional: Bool
    package var oneTime: Bool
    package var temporaryFullAccuracy: Bool
    package var settingsLabel: SettingsLabel

    package init(_ record: AuthorizationRecord) {
        status = record.status
        accuracy = record.accuracy
        provisional = record.provisional
        oneTime = record.oneTime
        temporaryFullAccuracy = record.temporaryFullAccuracy
        settingsLabel = record.settingsLabel
    }
}

/// A session as replies show it.
package struct SessionView: Hashable, Codable, Sendable {
    package var id: SessionID
    package var appID: String
    package var kind: SessionKind
    package var requirement: Requirement
    package var purposeKey: String?
    package var state: SessionState
    package var diagnostic: DiagnosticMask
    /// The lingering deadline, if the session lingers.
    package var deadline: Instant?
    /// Time left until ``deadline`` at the moment of the reply.
    package var remaining: Span?
    /// Its app's user (H1).
    package let user: UInt32?
}

/// An app as `Admin.ListApps` shows it.
package struct AppView: Hashable, Codable, Sendable {
    package var appID: String
    package var manifest: String
    package var state: AppState
    package var inUse: Bool
    package var usingLocationInBackground: Bool
    package var authorization: AuthorizationView
    package var clients: Int
    package var sessions: Int
    /// Who made the app, for an app with no manifest of its own; `nil` for one with a manifest of its own (F20).
    package var owner: AppOwner?
    /// The user whose app this is (H1); `nil` for an app's entry of no user (H2).
    package let user: UInt32?
    /// The administrator's setting of the app for every user, if any (H5).
    package var policy: AppPolicy? = nil
    /// Which source decided its state while it runs: its desktop's name, or `app` (L13).
    package var stateSource: String? = nil
}

/// The core's part of `Admin.Status`; the shell adds version, pid, uptime, provider and store.
package struct CoreStatus: Hashable, Codable, Sendable {
    package var locationServicesEnabled: Bool
    package var apps: Int
    package var clients: Int
    package var sessions: Int
    package var lingeringSessions: Int
    package var pendingPrompts: Int
    package var agents: Int
    package var appsUsingLocation: [String]
    package var appsUsingLocationInBackground: [String]
    /// For a caller that may not administer (H4): whether it turned location services off for itself (H6);
    /// `nil` for an administrator, whose counts are the machine's.
    package var locationServicesEnabledForUser: Bool? = nil
    /// The desktop sources the caller may see (L13).
    package var desktops: [DesktopView] = []
}

/// The kinds of prompt (SEMANTICS §6).
package enum PromptKind: String, CaseIterable, Codable, Sendable {
    case authorization
    case alwaysUpgrade
    case temporaryFullAccuracy
    /// Keep Always? after background use under Always (P12).
    case alwaysReconfirm
}

/// The answers a prompt may offer.
package enum PromptAnswer: String, CaseIterable, Codable, Sendable {
    case allowWhileUsing
    case allowOnce
    case deny
    case keepWhileUsing
    case changeToAlways
    case allow
    case keepAlways
    case changeToWhileUsing
    /// Always Allow, the authorization prompt's offer for an app with no window (L14).
    case allowAlways
}

/// The accuracy choice on an authorization prompt.
package enum PromptAccuracy: String, CaseIterable, Codable, Sendable {
    case full
    case reduced
}

/// A prompt as agents see it.
package struct PromptView: Hashable, Codable, Sendable {
    package var id: PromptID
    package var appID: String
    package var kind: PromptKind
    package var usageDescription: String
    package var purposeKey: String?
    package var options: [PromptAnswer]
    package var defaultAccuracy: PromptAccuracy
    package var accuracyToggle: Bool
    package var raisedAt: Instant
    /// The user whose app asks (H1): their agents are offered the prompt (H7).
    package let user: UInt32?
    /// A broker speaks for a process of the app (I8): a desktop with GeoClue dialogs of its own asks it there (N6).
    package var brokered = false
}

/// The kinds of `Admin.Watch` event.
package enum AdminEventKind: String, CaseIterable, Codable, Sendable {
    case sessionCreated
    case sessionChanged
    case sessionEnded
    case appStateChanged
    case authorizationChanged
    case promptRaised
    case promptResolved
    case servicesChanged
}

/// One state change, as `Admin.Watch` reports it.
package struct AdminEvent: Hashable, Codable, Sendable {
    package var kind: AdminEventKind
    package var appID: String?
    package var sessionID: SessionID?
    package var detail: String
    package var at: Instant
    /// The user whose app the event is about (H1), if it is about a user's app.
    package let user: UInt32?
}
