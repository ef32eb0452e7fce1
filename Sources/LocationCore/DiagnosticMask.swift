/// The 14 diagnostic flags of SEMANTICS §7 as one mask in Apple's bit order.
package struct DiagnosticMask: OptionSet, Hashable, Codable, Sendable, CustomStringConvertible {
    package var rawValue: UInt16

    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let authorizationDenied = DiagnosticMask(rawValue: 1 << 0)
    package static let authorizationDeniedGlobally = DiagnosticMask(rawValue: 1 << 1)
    package static let authorizationRestricted = DiagnosticMask(rawValue: 1 << 2)
    package static let stationary = DiagnosticMask(rawValue: 1 << 3)
    package static let insufficientlyInUse = DiagnosticMask(rawValue: 1 << 4)
    package static let locationUnavailable = DiagnosticMask(rawValue: 1 << 5)
    package static let accuracyLimited = DiagnosticMask(rawValue: 1 << 6)
    package static let conditionUnsupported = DiagnosticMask(rawValue: 1 << 7)
    package static let conditionLimitExceeded = DiagnosticMask(rawValue: 1 << 8)
    package static let persistenceUnavailable = DiagnosticMask(rawValue: 1 << 9)
    package static let alwaysAuthorizationDenied = DiagnosticMask(rawValue: 1 << 10)
    package static let fullAccuracyDenied = DiagnosticMask(rawValue: 1 << 11)
    package static let serviceSessionRequired = DiagnosticMask(rawValue: 1 << 12)
    package static let authorizationRequestInProgress = DiagnosticMask(rawValue: 1 << 13)

    /// Every flag's wire name, in bit order (the index is the bit).
    package static let names: [String] = [
        "authorizationDenied", "authorizationDeniedGlobally", "authorizationRestricted", "stationary",
        "insufficientlyInUse", "locationUnavailable", "accuracyLimited", "conditionUnsupported",
        "conditionLimitExceeded", "persistenceUnavailable", "alwaysAuthorizationDenied", "fullAccuracyDenied",
        "serviceSessionRequired", "authorizationRequestInProgress",
    ]

    /// The bits that make a session limited (D12).
    package static let limitingSession: DiagnosticMask = [
        .authorizationDenied, .authorizationDeniedGlobally, .authorizationRestricted, .insufficientlyInUse,
        .fullAccuracyDenied, .serviceSessionRequired, .authorizationRequestInProgress,
    ]

    /// The bits that keep the location out of an update (U1).
    package static let withholdingLocation: DiagnosticMask = [
        .authorizationDenied, .authorizationDeniedGlobally, .authorizationRestricted, .stationary,
        .insufficientlyInUse, .locationUnavailable, .serviceSessionRequired, .authorizationRequestInProgress,
    ]

    /// The bits that stop a monitor from evaluating its conditions (U4): U1's, less the two about the
    /// provider, plus `accuracyLimited` (region monitoring needs precise location, as on iOS 14+).
    package static let withholdingMonitoring: DiagnosticMask = [
        .authorizationDenied, .authorizationDeniedGlobally, .authorizationRestricted, .insufficientlyInUse,
        .accuracyLimited, .serviceSessionRequired, .authorizationRequestInProgress,
    ]

    /// The names of the flags that are set, in bit order.
    package var flagNames: [String] {
        DiagnosticMask.names.indices.compactMap { rawValue & (1 << $0) != 0 ? DiagnosticMask.names[$0] : nil }
    }

    /// Builds a mask from wire names; `nil` if one is unknown.
    package init?(flagNames: [String]) {
        var mask = DiagnosticMask()
        for name in flagNames {
            guard let bit = DiagnosticMask.names.firstIndex(of: name) else { return nil }
            mask.insert(DiagnosticMask(rawValue: 1 << bit))
        }
        self = mask
    }

    package var description: String { "[" + flagNames.joined(separator: ",") + "]" }
}
