/// A JSON value, as Varlink carries it: parsed and written by hand (every call and reply is the hot path).
///
/// Objects keep their keys in insertion order so that replies are written in the order the IDL lists fields.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Parses one JSON document, nested at most 512 deep; `nil` when it is not valid JSON.
    public static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        try? JSONParser.parse(bytes, limits: .document).get()
    }

    /// Parses one JSON document within `limits`, or says why it is refused.
    public static func parse(_ bytes: some Collection<UInt8>, limits: JSONLimits) -> Result<JSONValue, JSONParseError> {
        JSONParser.parse(bytes, limits: limits)
    }

    /// The compact JSON text of the value.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends the compact JSON text of the value.
    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value):
            if value.isFinite {
                if value == value.rounded(), abs(value) < 1e15 {
                    out += String(Int64(value))
                    out += ".0"
                } else {
                    out += "\(value)"
                }
            } else {
                out += "null"
            }
        case .string(let value): JSONValue.writeString(value, to: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (index, (key, value)) in object.fields.enumerated() {
                if index > 0 { out += "," }
                JSONValue.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ string: String, to out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    // MARK: Reading

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// An integer, also from a float with no fraction (JSON does not tell them apart).
    public var intValue: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value == value.rounded() && abs(value) < 9e18: return Int64(value)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// A JSON object with ordered keys.
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(String, JSONValue)]

    public init(_ fields: [(String, JSONValue)] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        fields = elements
    }

    public subscript(key: String) -> JSONValue? {
        get { fields.first { $0.0 == key }?.1 }
        set {
            if let index = fields.firstIndex(where: { $0.0 == key }) {
                if let newValue { fields[index].1 = newValue } else { fields.remove(at: index) }
            } else if let newValue {
                fields.append((key, newValue))
            }
        }
    }

    public var keys: [String] { fields.map(\.0) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.fields.count == rhs.fields.count
            && lhs.fields.allSatisfy { field in rhs[field.0] == field.1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields.count)
        for key in keys.sorted() { hasher.combine(key) }
    }
}
