/// Core Location's `CLAuthorizationStatus`, with Apple's raw values in ``code``.
package enum AuthorizationStatus: String, CaseIterable, Codable, Sendable {
    case notDetermined
    case restricted
    case denied
    case authorizedAlways
    case authorizedWhenInUse

    /// Apple's raw value (seed 001's table: 0 … 4).
    package var code: Int {
        switch self {
        case .notDetermined: 0
        case .restricted: 1
        case .denied: 2
        case .authorizedAlways: 3
        case .authorizedWhenInUse: 4
        }
    }

    /// `authorizedWhenInUse` or `authorizedAlways`.
    package var isAuthorized: Bool { self == .authorizedAlways || self == .authorizedWhenInUse }
}

/// `CLAccuracyAuthorization`.
package enum AccuracyAuthorization: String, CaseIterable, Codable, Sendable {
    case fullAccuracy
    case reducedAccuracy
}

/// Whether the Always upgrade has been offered and how it was answered (offered once, SEMANTICS §6.2).
package enum AlwaysDecision: String, CaseIterable, Codable, Sendable {
    case undecided
    case granted
    case declined
}

/// What a Settings screen shows for an app (SEMANTICS A2); derived, never stored.
package enum SettingsLabel: String, CaseIterable, Codable, Sendable {
    case restricted
    case never
    case askNextTime
    case whileUsing
    case always
}

/// The settings an admin can choose, as a Settings screen offers them (SEMANTICS A3).
package enum AuthorizationSetting: String, CaseIterable, Codable, Sendable {
    case never
    case askNextTime
    case whileUsing
    case always
}

/// The per-app decision of SEMANTICS §3, persisted durably.
package struct AuthorizationRecord: Hashable, Codable, Sendable {
    package var status: AuthorizationStatus = .notDetermined
    package var provisional = false
    package var oneTime = false
    package var accuracy: AccuracyAuthorization = .fullAccuracy
    package var temporaryFullAccuracy = false
    package var alwaysDecision: AlwaysDecision = .undecided

    package init(
        status: AuthorizationStatus = .notDetermined,
        provisional: Bool = false,
        oneTime: Bool = false,
        accuracy: AccuracyAuthorization = .fullAccuracy,
        temporaryFullAccuracy: Bool = false,
        alwaysDecision: AlwaysDecision = .undecided
    ) {
        self.status = status
        self.provisional = provisional
        self.oneTime = oneTime
        self.accuracy = accuracy
        self.temporaryFullAccuracy = temporaryFullAccuracy
        self.alwaysDecision = alwaysDecision
    }

    /// The record as every rule reads it: policy's `restricted` overlays the stored status (A1).
    package func overlaid(restricted: Bool) -> AuthorizationRecord {
        guard restricted else { return self }
        var copy = self
        copy.status = .restricted
        return copy
    }

    /// The Settings label (A2): first match wins.
    package var settingsLabel: SettingsLabel {
        if status == .restricted { return .restricted }
        if status == .denied { return .never }
        if oneTime || status == .notDetermined { return .askNextTime }
        if provisional || status == .authorizedWhenInUse { return .whileUsing }
        return .always
    }

    /// Whether the effective accuracy is reduced (D8): reduced and no temporary grant.
    package var accuracyLimited: Bool { accuracy == .reducedAccuracy && !temporaryFullAccuracy }
}
