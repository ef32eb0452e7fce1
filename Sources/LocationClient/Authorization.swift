/// An app's authorization, as Core Location reports it (`CLAuthorizationStatus`, `CLAccuracyAuthorization`),
/// with the label the Settings screen shows for it.
public struct Authorization: Sendable, Hashable, CustomStringConvertible {
    /// `CLAuthorizationStatus`; raw values are the wire names.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        case notDetermined
        case restricted
        case denied
        case authorizedAlways
        case authorizedWhenInUse
    }

    /// `CLAccuracyAuthorization`; raw values are the wire names.
    public enum Accuracy: String, Sendable, Hashable, CaseIterable {
        case fullAccuracy
        case reducedAccuracy
    }

    /// The Settings screen's choice for the app; raw values are the wire names.
    public enum SettingsLabel: String, Sendable, Hashable, CaseIterable {
        case restricted
        case never
        case askNextTime
        case whileUsing
        case always
    }

    public var status: Status
    public var accuracy: Accuracy
    /// Always was granted provisionally (iOS 13: "Allow While Using" on an Always request).
    public var provisional: Bool
    /// An Allow Once grant: it ends when the app stops being in use.
    public var oneTime: Bool
    /// A temporary full-accuracy grant is in effect.
    public var temporaryFullAccuracy: Bool
    public var settingsLabel: SettingsLabel

    public init(
        status: Status,
        accuracy: Accuracy,
        provisional: Bool = false,
        oneTime: Bool = false,
        temporaryFullAccuracy: Bool = false,
        settingsLabel: SettingsLabel
    ) {
        self.status = status
        self.accuracy = accuracy
        self.provisional = provisional
        self.oneTime = oneTime
        self.temporaryFullAccuracy = temporaryFullAccuracy
        self.settingsLabel = settingsLabel
    }

    /// The status, accuracy and what qualifies them, then the Settings label, as
    /// `authorizedAlways, fullAccuracy, provisional (Settings: whileUsing)`.
    public var description: String {
        var parts = [status.rawValue, accuracy.rawValue]
        if provisional { parts.append("provisional") }
        if oneTime { parts.append("oneTime") }
        if temporaryFullAccuracy { parts.append("temporaryFullAccuracy") }
        return parts.joined(separator: ", ") + " (Settings: \(settingsLabel.rawValue))"
    }

    /// Whether location may be delivered at all: `authorizedWhenInUse` or `authorizedAlways`.
    public var isAuthorized: Bool { status == .authorizedAlways || status == .authorizedWhenInUse }
}
