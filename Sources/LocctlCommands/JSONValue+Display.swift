import DisplayText
import JSON

extension JSONValue {
    /// This value with every string in it, keys included, escaped for a terminal (SEMANTICS I16): what locctl's
    /// text outputs render, since app ids, descriptions and reasons come from apps and users. JSON output is written
    /// from the value as it came, JSON-escaped.
    var shownAsText: JSONValue {
        switch self {
        case .string(let text): .string(text.escapedForDisplay)
        case .array(let values): .array(values.map(\.shownAsText))
        case .object(let object): .object(JSONObject(object.fields.map { ($0.0.escapedForDisplay, $0.1.shownAsText) }))
        case .null, .bool, .int, .double: self
        }
    }
}
