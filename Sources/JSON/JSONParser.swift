/// A JSON parser (RFC 8259) over UTF-8 bytes, straight into ``JSONValue``.
///
/// Every call the daemon receives is parsed here, so it is the hot path of the transport: Foundation's
/// `JSONDecoder` through `Decodable` probed each value's container kinds by throwing and catching, and cost
/// more than the whole session core per call. It accepts and refuses what `JSONDecoder` did before it, so
/// that no client sees a change: invalid UTF-8, control characters in strings, leading zeros, `NaN` and
/// trailing bytes are refused; a leading byte-order mark and a trailing comma in an array or object are
/// accepted, and of a repeated key the first value counts.
///
/// Its cost is linear in the text whatever the text: a repeated key is found through a hash set once an
/// object has more than a few keys (a search of the keys so far made one 1 MiB call of 110,000 keys take
/// 20 s of the event loop), and nesting, keys per object and values in all are bounded by ``JSONLimits``,
/// checked as the text is read, so that a refused text is not read further (F1). Nesting is bounded before
/// it can reach the stack's end.
struct JSONParser {
    /// Keys of an object past which a repeated key is looked for in a set, not by a search.
    static let smallObject = 16

    /// The text, lent for the parse only.
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private let limits: JSONLimits
    /// Values read so far, against ``JSONLimits/maximumValues``.
    private var values = 0
    /// Why the parse stopped, once it has.
    private var failure = JSONParseError.invalid

    private init(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// The one JSON value `bytes` hold, surrounded by optional whitespace, or why there is none.
    ///
    /// Bytes held in one piece (a frame in its `ByteBuffer`, an array) are parsed where they are; others are
    /// copied into an array first.
    static func parse(_ bytes: some Collection<UInt8>, limits: JSONLimits) -> Result<JSONValue, JSONParseError> {
        if let result = bytes.withContiguousStorageIfAvailable({ parse(buffer: $0, limits: limits) }) {
            return result
        }
        return Array(bytes).withUnsafeBufferPointer { parse(buffer: $0, limits: limits) }
    }

    private static func parse(
        buffer: UnsafeBufferPointer<UInt8>,
        limits: JSONLimits
    ) -> Result<JSONValue, JSONParseError> {
        var parser = JSONParser(buffer, limits: limits)
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }
        guard let value = parser.value(depth: 0) else { return .failure(parser.failure) }
        parser.skipWhitespace()
        return parser.position == parser.bytes.count ? .success(value) : .failure(.invalid)
    }

    /// Stops the parse for a limit: `nil`, for the caller to return.
    private mutating func refuse(_ reason: JSONParseError) -> JSONValue? {
        failure = reason
        return nil
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) -> JSONValue? {
        guard depth < limits.maximumDepth else { return refuse(.tooDeep(maximum: limits.maximumDepth)) }
        values += 1
        guard values <= limits.maximumValues else { return refuse(.tooManyValues(maximum: limits.maximumValues)) }
        skipWhitespace()
        guard position < bytes.count else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ text: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] { return nil }
        position += count
        return value
    }

    private mutating func object(depth: Int) -> JSONValue? {
        position += 1
        var fields: [(String, JSONValue)] = []
        /// The keys so far, once there are more than a search through them should cost.
        var seen: Set<String>?
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject(fields))
        }
        while true {
            skipWhitespace()
            if !fields.isEmpty, position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(JSONObject(fields))
            }
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
            // Room for a call's fields at once, rather than regrowing the array as they come.
            if fields.isEmpty { fields.reserveCapacity(4) }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
            position += 1
            guard let member = value(depth: depth + 1) else { return nil }
            // A repeated key keeps its first value, as the `JSONDecoder` path did. A call's handful of keys
            // are searched; past `smallObject` a set of them answers, so that the check stays linear.
            if var keys = seen {
                seen = nil
                if keys.insert(key).inserted { fields.append((key, member)) }
                seen = keys
            } else if !fields.contains(where: { $0.0 == key }) {
                fields.append((key, member))
                if fields.count == Self.smallObject { seen = Set(fields.lazy.map(\.0)) }
            }
            guard fields.count <= limits.maximumKeys else {
                return refuse(.tooManyKeys(maximum: limits.maximumKeys))
            }
            skipWhitespace()
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(JSONObject(fields))
            default: return nil
            }
        }
    }

    private mutating func array(depth: Int) -> JSONValue? {
        position += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            if !values.isEmpty, position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(values)
            }
            guard let element = value(depth: depth + 1) else { return nil }
            values.append(element)
            skipWhitespace()
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(values)
            default: return nil
            }
        }
    }

    /// A string, from its opening quote; plain runs are copied as they are, escapes decoded.
    private mutating func string() -> String? {
        position += 1
        var decoded: [UInt8] = []
        var runStart = position
        var ascii = true
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                defer { position += 1 }
                // Most strings have no escape: made straight from their bytes, with no copy in between. ASCII
                // needs no validation, which costs a generic call into the standard library per string.
                guard !decoded.isEmpty else {
                    let run = UnsafeBufferPointer(rebasing: bytes[runStart..<position])
                    return ascii ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self)
                }
                decoded.append(contentsOf: bytes[runStart..<position])
                return ascii ? String(decoding: decoded, as: UTF8.self) : String(validating: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                decoded.append(contentsOf: bytes[runStart..<position])
                position += 1
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    decoded.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: return nil
                }
                runStart = position
            case 0..<0x20:
                return nil
            case 0x80...:
                ascii = false
                position += 1
            default:
                position += 1
            }
        }
        return nil
    }

    /// The scalar of `\uXXXX` (the `\u` already read), joining a surrogate pair written as two escapes.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hexQuad() else { return nil }
        if (0xD800..<0xDC00).contains(high) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                bytes[position + 1] == UInt8(ascii: "u")
            else { return nil }
            position += 2
            guard let low = hexQuad(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hexQuad() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    /// A number: an integer without fraction or exponent that fits `Int64` is `.int`, any other `.double`.
    private mutating func number() -> JSONValue? {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { return nil }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            guard digits() > 0 else { return nil }
        }
        var integral = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            integral = false
            guard digits() > 0 else { return nil }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            integral = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { return nil }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if integral, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { return nil }
        return .double(value)
    }

    private mutating func digits() -> Int {
        let start = position
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            position += 1
        }
        return position - start
    }
}
