import LocationCore

/// One thing that can happen in the world around the core: what an app, the desktop, the person's agent, the
/// provider, the clock or the service manager does. Clients, apps and users are numbered from 0.
package enum ModelEvent: Hashable, Sendable, CustomStringConvertible {
    /// Process `client` connects as user `user`'s app `app` and says `Hello`, in the background or not (L1).
    case launch(client: Int, app: Int, user: Int, background: Bool)
    /// `CreateSession` on the client's connection; with the purpose key of its app's kind or none (S6–S8).
    case create(client: Int, Requirement, purpose: Bool)
    /// `InvalidateSession` of the newest session the client created that still exists.
    case invalidate(client: Int)
    /// `ResumeSession` of the oldest lingering session of the client's app (L4, R3).
    case resume(client: Int)
    /// The app's own claim, `SetAppState` (L1).
    case claim(client: Int, RunningState)
    /// The desktop's report of what is in front, `Admin.SetAppState` from the compositor's agent (L1).
    case desktop(app: Int, user: Int, RunningState)
    /// `LiveUpdates` on the client's connection (U1).
    case liveUpdates(client: Int)
    /// The connection closes without `Goodbye` (L3).
    case disconnect(client: Int)
    /// `Goodbye`, then the connection closes (L3).
    case goodbye(client: Int)
    /// The person answers the head prompt of user `user`'s app `app` (§6).
    case answer(app: Int, user: Int, PromptAnswer)
    /// The administrator turns location services off or on (A4).
    case services(Bool)
    /// The provider delivers its fix, or loses it (U1, D9).
    case fix
    case fixLost
    /// The clock moves to just before, exactly at, or just after the armed deadline, and the timer fires (L6).
    case time(TimePoint)
    /// The daemon restarts: every connection closes and a fresh core restores what was stored (R2, R3).
    case restart

    package var description: String {
        switch self {
        case .launch(let client, let app, let user, let background):
            "client \(client) launches app \(app) of user \(user)\(background ? " in the background" : "")"
        case .create(let client, let requirement, let purpose):
            "client \(client) creates a \(requirement.rawValue) session\(purpose ? " with a purpose key" : "")"
        case .invalidate(let client): "client \(client) invalidates its newest session"
        case .resume(let client): "client \(client) resumes its app's oldest lingering session"
        case .claim(let client, let state): "client \(client)'s app says it is in the \(state.rawValue)"
        case .desktop(let app, let user, let state):
            "the desktop reports app \(app) of user \(user) in the \(state.rawValue)"
        case .liveUpdates(let client): "client \(client) starts live updates"
        case .disconnect(let client): "client \(client) disconnects"
        case .goodbye(let client): "client \(client) says Goodbye and closes"
        case .answer(let app, let user, let answer): "the agent answers app \(app) of user \(user): \(answer.rawValue)"
        case .services(let enabled): "location services \(enabled ? "on" : "off")"
        case .fix: "the provider delivers a fix"
        case .fixLost: "the provider loses its fix"
        case .time(let point): "the clock moves \(point.rawValue) the armed deadline"
        case .restart: "the daemon restarts"
        }
    }

    /// The event as Swift source, for a saved regression test.
    package var swiftLiteral: String {
        switch self {
        case .launch(let client, let app, let user, let background):
            ".launch(client: \(client), app: \(app), user: \(user), background: \(background))"
        case .create(let client, let requirement, let purpose):
            ".create(client: \(client), .\(requirement == .noAuthorization ? "noAuthorization" : requirement.rawValue), "
                + "purpose: \(purpose))"
        case .invalidate(let client): ".invalidate(client: \(client))"
        case .resume(let client): ".resume(client: \(client))"
        case .claim(let client, let state): ".claim(client: \(client), .\(state.rawValue))"
        case .desktop(let app, let user, let state): ".desktop(app: \(app), user: \(user), .\(state.rawValue))"
        case .liveUpdates(let client): ".liveUpdates(client: \(client))"
        case .disconnect(let client): ".disconnect(client: \(client))"
        case .goodbye(let client): ".goodbye(client: \(client))"
        case .answer(let app, let user, let answer): ".answer(app: \(app), user: \(user), .\(answer.rawValue))"
        case .services(let enabled): ".services(\(enabled))"
        case .fix: ".fix"
        case .fixLost: ".fixLost"
        case .time(let point): ".time(.\(point))"
        case .restart: ".restart"
        }
    }
}

/// The instants the clock may move to: the interesting ones around the armed deadline.
package enum TimePoint: String, CaseIterable, Hashable, Sendable {
    case before = "to just before"
    case at = "exactly to"
    case after = "to just after"
}
