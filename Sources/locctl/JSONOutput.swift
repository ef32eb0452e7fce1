import JSON
import Varlink

/// What `--json` prints: the Admin reply's value, its objects' keys in alphabetical order.
///
/// The Varlink client's parser does not keep the order the daemon wrote keys in, and hashing is
/// seeded per process, so without sorting two runs could print the same value differently; sorted
/// keys make the output byte-stable for scripts and diffs (as `jq -S` would).
enum JSONOutput {
    /// The value as one line of compact JSON with sorted keys, without the newline.
    static func line(_ value: JSONValue) -> String {
        sorted(value).serialized
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
}
