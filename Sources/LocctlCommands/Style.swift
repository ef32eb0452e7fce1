import LocationConfiguration

#if canImport(Glibc)
import Glibc
#endif

/// Whether human output is coloured, and the colours themselves.
///
/// Colour only helps a person at a terminal: in a pipe or a file the escape codes are noise, and
/// `NO_COLOR` (no-color.org) is the user's standing request for none. `TERM=dumb` cannot show them.
struct Style: Sendable, Equatable {
    /// The few colours locctl uses, as SGR parameters.
    enum Color: String, Sendable {
        case bold = "1"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case dim = "2"
    }

    var colors: Bool

    static let plain = Style(colors: false)

    /// The decision for an output stream.
    /// - Parameters:
    ///   - isTerminal: whether the stream is a terminal (`isatty`).
    ///   - environment: the process environment; a non-empty `NO_COLOR` or `TERM=dumb` turns colour off.
    static func decide(isTerminal: Bool, environment: [String: String]) -> Style {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .plain }
        if environment["TERM"] == "dumb" { return .plain }
        return Style(colors: isTerminal)
    }

    /// The decision for standard output of this process.
    static var standardOutput: Style {
        decide(isTerminal: isatty(1) == 1, environment: ProcessEnvironment.current)
    }

    /// `text` in `color`, or `text` unchanged when colour is off.
    func paint(_ text: String, _ color: Color?) -> String {
        guard colors, let color, !text.isEmpty else { return text }
        return "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m"
    }
}

extension Style.Color {
    /// The colour of a wire value: green for what works, yellow for what is limited or undecided,
    /// red for what is refused or broken; `nil` for values that need no emphasis.
    static func of(_ value: String) -> Style.Color? {
        switch value {
        case "on", "active", "authorizedAlways", "authorizedWhenInUse", "whileUsing", "always", "healthy",
            "running", "yes":
            .green
        case "limited", "lingering", "notDetermined", "askNextTime", "reducedAccuracy", "connecting", "retrying":
            .yellow
        case "off", "invalidated", "denied", "restricted", "never", "FAILING", "failed":
            .red
        default:
            nil
        }
    }
}
