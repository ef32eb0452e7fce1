/// An administrator's setting of an app for every user (SEMANTICS H5), as GeoClue's `[app] allowed=` and
/// `system=` were: what every user's app of that id takes, and the most any user may give it.
package struct AppPolicy: Hashable, Codable, Sendable {
    /// The setting every user's app takes, and the loosest a user may choose; `nil`: users choose.
    package var setting: AuthorizationSetting?
    /// `false`: no user's app gets precise locations, nor a temporary full-accuracy grant; `nil`: users choose.
    package var precise: Bool?

    /// Ask Next Time sets every user's app to ask, and leaves the choice to them: it is no ceiling.
    package init(setting: AuthorizationSetting?, precise: Bool?) {
        self.setting = setting == .askNextTime ? nil : setting
        self.precise = precise
    }

    /// Whether the policy still limits anything.
    var isEmpty: Bool { setting == nil && precise == nil }

    /// Whether a user may choose `setting` for their app under this policy (a stricter one, never a looser one).
    package func allows(_ setting: AuthorizationSetting) -> Bool {
        guard let ceiling = self.setting else { return true }
        return setting.looseness <= ceiling.looseness
    }

    /// Whether a user may turn precise locations on.
    package var allowsPrecise: Bool { precise != false }

    /// `record` as the policy lets it be: a grant looser than the setting is narrowed to it, and precise
    /// locations are taken away where the policy forbids them.
    func clamped(_ record: AuthorizationRecord) -> AuthorizationRecord {
        var record = record
        switch setting {
        case .never:
            if record.status != .restricted {
                record.status = .denied
                record.provisional = false
                record.oneTime = false
            }
        case .whileUsing:
            if record.status == .authorizedAlways {
                record.status = .authorizedWhenInUse
                record.provisional = false
            }
            // No Always upgrade is offered that the policy would take back (S7).
            record.alwaysDecision = .declined
        case .askNextTime, .always, nil:
            break
        }
        if precise == false {
            record.accuracy = .reducedAccuracy
            record.temporaryFullAccuracy = false
        }
        return record
    }

    /// The record a user's app takes when the policy is set or the app is made: the setting itself, then clamped.
    func applied(to record: AuthorizationRecord) -> AuthorizationRecord {
        var record = record
        if let setting { record.apply(setting) }
        if precise == true { record.accuracy = .fullAccuracy }
        return clamped(record)
    }
}

extension AuthorizationSetting {
    /// How much the setting lets an app do: Never < Ask Next Time < While Using < Always.
    var looseness: Int {
        switch self {
        case .never: 0
        case .askNextTime: 1
        case .whileUsing: 2
        case .always: 3
        }
    }
}

extension AuthorizationRecord {
    /// The record as a Settings screen leaves it when `setting` is chosen (A3).
    mutating func apply(_ setting: AuthorizationSetting) {
        switch setting {
        case .never:
            status = .denied
            provisional = false
        case .askNextTime:
            status = .notDetermined
            provisional = false
            alwaysDecision = .undecided
        case .whileUsing:
            status = .authorizedWhenInUse
            provisional = false
            alwaysDecision = .declined
        case .always:
            status = .authorizedAlways
            provisional = false
            alwaysDecision = .granted
        }
    }
}
