import ArgumentParser

/// What `locctl auth` sets, spelled as SEMANTICS A3 spells it for the command line.
///
/// The raw values are the command-line words; ``wireName`` is what `Admin.SetAuthorization` takes.
enum AuthorizationSetting: String, CaseIterable, ExpressibleByArgument, Sendable {
    case never
    case askNextTime = "ask-next-time"
    case whileUsing = "while-using"
    case always

    /// A command-line word, or the wire name `locctl apps` prints in its SETTING column (`askNextTime`,
    /// `whileUsing`), so that what one command prints another takes.
    init?(argument: String) {
        guard let setting = Self(rawValue: argument) ?? Self.allCases.first(where: { $0.wireName == argument }) else {
            return nil
        }
        self = setting
    }

    var wireName: String {
        switch self {
        case .never: "never"
        case .askNextTime: "askNextTime"
        case .whileUsing: "whileUsing"
        case .always: "always"
        }
    }
}

/// `on` or `off`, for switches.
enum Switch: String, CaseIterable, ExpressibleByArgument, Sendable {
    case on
    case off

    var isOn: Bool { self == .on }
}

/// The options an agent may be told to give every prompt (`agent --answer`), by their wire names.
enum AgentAnswer: String, CaseIterable, ExpressibleByArgument, Sendable {
    case allowWhileUsing, allowOnce, deny, keepWhileUsing, changeToAlways, allow, keepAlways, changeToWhileUsing
    case allowAlways
}
