/// What a session asks for: `none < whenInUse < always` (SEMANTICS §1).
package enum Requirement: String, CaseIterable, Codable, Sendable, Comparable {
    /// Wire name `none`; named so that it is never confused with `Optional.none`.
    case noAuthorization = "none"
    case whenInUse
    case always

    private var rank: Int {
        switch self {
        case .noAuthorization: 0
        case .whenInUse: 1
        case .always: 2
        }
    }

    package static func < (lhs: Requirement, rhs: Requirement) -> Bool { lhs.rank < rhs.rank }
}

/// How a session came to be (SEMANTICS §5).
package enum SessionKind: String, CaseIterable, Codable, Sendable {
    case explicit
    case implicit
    case backgroundActivity
}

/// The state a session reports: `lingering` without an owner, else `active` or `limited` per D12.
package enum SessionState: String, CaseIterable, Codable, Sendable {
    case active
    case limited
    case lingering
    case invalidated
}

/// The app states of SEMANTICS §4.
package enum AppState: String, CaseIterable, Codable, Sendable {
    case notRunning
    case foreground
    case background
    case terminated
}

/// The two states a client or agent may put a running app in.
package enum RunningState: String, CaseIterable, Codable, Sendable {
    case foreground
    case background
}

/// The level of a legacy `RequestAuthorization` call (P10).
package enum RequestLevel: String, CaseIterable, Codable, Sendable {
    case whenInUse
    case always
}

/// `LiveConfiguration` of iOS 17: the kind of activity the updates serve (U1).
package enum LiveConfiguration: String, CaseIterable, Codable, Sendable {
    /// Wire name `default`, a Swift keyword.
    case standard = "default"
    case automotiveNavigation
    case otherNavigation
    case fitness
    case airborne
}
