import LocationProtocol

/// The diagnostic bits, one 14-bit mask in Apple's bit order, as locd sends them with sessions, updates and
/// monitor events.
///
/// ``ServiceSession/Diagnostic``, ``LocationUpdate`` and ``Monitor/Event`` expose the bits that apply to them
/// as Apple-named Bools; this is the whole mask, for logging and for what those types leave out.
public struct DiagnosticFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let authorizationDenied = DiagnosticFlags(rawValue: 1 << 0)
    public static let authorizationDeniedGlobally = DiagnosticFlags(rawValue: 1 << 1)
    public static let authorizationRestricted = DiagnosticFlags(rawValue: 1 << 2)
    public static let stationary = DiagnosticFlags(rawValue: 1 << 3)
    public static let insufficientlyInUse = DiagnosticFlags(rawValue: 1 << 4)
    public static let locationUnavailable = DiagnosticFlags(rawValue: 1 << 5)
    public static let accuracyLimited = DiagnosticFlags(rawValue: 1 << 6)
    public static let conditionUnsupported = DiagnosticFlags(rawValue: 1 << 7)
    public static let conditionLimitExceeded = DiagnosticFlags(rawValue: 1 << 8)
    public static let persistenceUnavailable = DiagnosticFlags(rawValue: 1 << 9)
    public static let alwaysAuthorizationDenied = DiagnosticFlags(rawValue: 1 << 10)
    public static let fullAccuracyDenied = DiagnosticFlags(rawValue: 1 << 11)
    public static let serviceSessionRequired = DiagnosticFlags(rawValue: 1 << 12)
    public static let authorizationRequestInProgress = DiagnosticFlags(rawValue: 1 << 13)

    /// The wire name of each bit, in bit order.
    public static let names = WireDiagnostic.flagNames

    /// The wire names of the bits that are set, in bit order.
    public var names: [String] {
        Self.names.indices.filter { rawValue & (1 << $0) != 0 }.map { Self.names[$0] }
    }

    /// The names of the flags that are set, as `[accuracyLimited, insufficientlyInUse]`; `[]` when none limits.
    public var description: String { "[" + names.joined(separator: ", ") + "]" }

    /// The flags named, ignoring names this version does not know.
    public init(names: some Sequence<String>) {
        var raw = 0
        for name in names {
            if let bit = Self.names.firstIndex(of: name) { raw |= 1 << bit }
        }
        self.init(rawValue: raw)
    }
}
