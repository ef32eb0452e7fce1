import JSON
import Varlink

/// What `--json` prints: the Admin reply's value, its objects' keys in alphabetical order.
///
/// The Varlink client's parser does not keep the order the daemon wrote keys in, and hashing is
/// seeded per process, so without sorting two runs could print the same value differently; sorted
/// keys make the output byte-stable for scripts and diffs (as `jq -S` would).
enum JSONOutput {
    /// How `--json` prints, as systemctl's `--json=` says it: `short` (one line, `--json` alone) or `pretty` (one
    /// field a line, indented). `--json=off` is no JSON at all (``GlobalOptions`` drops it).
    enum Style: String, CaseIterable {
        case short
        case pretty
    }

    /// The style this run's command line asks for: `pretty` when it says `--json=pretty`, before any `--`. Read
    /// from the command line itself, once, so that every command prints the same way without each one declaring it.
    static let style: Style = style(of: Array(CommandLine.arguments.dropFirst()))

    /// The style `arguments` ask for.
    static func style(of arguments: [String]) -> Style {
        let options = arguments.prefix { $0 != "--" }
        return options.contains("--json=pretty") ? .pretty : .short
    }

    /// The value as this run prints it (``style``), without the final newline.
    static func line(_ value: JSONValue) -> String {
        text(value, style: style)
    }

    /// The value in `style`, its keys sorted, without the final newline.
    static func text(_ value: JSONValue, style: Style) -> String {
        switch style {
        case .short: return sorted(value).serialized
        case .pretty: return pretty(sorted(value), indent: "")
        }
    }

    static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let values):
            return .array(values.map(sorted))
        case .object(let object):
            var result = JSONObject()
            for key in object.keys.sorted() { result[key] = sorted(object[key] ?? .null) }
            return .object(result)
        default:
            return value
        }
    }

    /// One element or field a line, two spaces deeper at each level; empty arrays and objects stay `[]` and `{}`.
    private static func pretty(_ value: JSONValue, indent: String) -> String {
        let inner = indent + "  "
        switch value {
        case .array(let values) where !values.isEmpty:
            let elements = values.map { inner + pretty($0, indent: inner) }
            return "[\n" + elements.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let object) where !object.keys.isEmpty:
            let fields = object.keys.map { key in
                inner + JSONValue.string(key).serialized + ": " + pretty(object[key] ?? .null, indent: inner)
            }
            return "{\n" + fields.joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return value.serialized
        }
    }
}
