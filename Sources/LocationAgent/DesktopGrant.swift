/// An app's location decision as both locd and the desktop's permission store spell it (SEMANTICS N7).
enum DesktopGrant: String, Equatable, Sendable, CaseIterable {
    /// Ask Next Time in locd; no entry in the store.
    case ask
    /// Never (or restricted) in locd; `NONE` in the store.
    case never
    /// While Using or Always, approximate; `COUNTRY` … `STREET` in the store (`CITY` written).
    case approximate
    /// While Using or Always, precise; `EXACT` in the store.
    case precise

    /// How strict it is, for N10's "the stricter wins": Never is the strictest; Ask Next Time decides nothing.
    var strictness: Int {
        switch self {
        case .never: 0
        case .approximate: 1
        case .precise: 2
        case .ask: 3
        }
    }

    /// The store's LEVEL for it; `nil` for Ask Next Time, which is no entry.
    var level: String? {
        switch self {
        case .ask: nil
        case .never: "NONE"
        case .approximate: "CITY"
        case .precise: "EXACT"
        }
    }

    /// The grant of a store entry: exactly two strings, the first a known LEVEL (N7); `nil` when it is none.
    init?(entry: [String]) {
        guard entry.count == 2 else { return nil }
        switch entry[0] {
        case "NONE": self = .never
        case "COUNTRY", "CITY", "NEIGHBORHOOD", "STREET": self = .approximate
        case "EXACT": self = .precise
        default: return nil
        }
    }

    /// The grant of a locd record: its settings label (A2) and accuracy.
    init(label: String, fullAccuracy: Bool) {
        switch label {
        case "never", "restricted": self = .never
        case "whileUsing", "always": self = fullAccuracy ? .precise : .approximate
        default: self = .ask
        }
    }
}

/// The person's location switch as GNOME's `org.gnome.system.location enabled` holds it (SEMANTICS N12): unset is
/// no decision.
enum DesktopSwitch: Equatable, Sendable {
    case unset
    case off
    case on

    init(_ enabled: Bool) { self = enabled ? .on : .off }

    var enabled: Bool? {
        switch self {
        case .unset: nil
        case .off: false
        case .on: true
        }
    }

    /// Off is the stricter; unset decides nothing (N10).
    var strictness: Int {
        switch self {
        case .off: 0
        case .on: 1
        case .unset: 2
        }
    }
}

/// Which side of a decision moved, by N10's rule.
enum SyncSide: Equatable, Sendable {
    case locd
    case desktop

    /// The side whose value the other takes: `nil` when both hold the same. Where exactly one side still holds
    /// `agreed`, the other moved; else a decision wins over none (`strictness` 3 or more), and between two the
    /// stricter (the lower `strictness`), locd's on a tie.
    static func winner<Value: Equatable>(
        locd: Value,
        desktop: Value,
        agreed: Value?,
        strictness: (Value) -> Int
    ) -> SyncSide? {
        if locd == desktop { return nil }
        if let agreed {
            if locd == agreed { return .desktop }
            if desktop == agreed { return .locd }
        }
        return strictness(desktop) < strictness(locd) ? .desktop : .locd
    }
}
