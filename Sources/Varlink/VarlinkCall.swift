import JSON
import LocationProtocol

/// One Varlink method call: `{"method", "parameters"?, "more"?, "oneway"?}`.
public struct VarlinkCall: Sendable, Hashable {
    /// The fully qualified method name, `interface.Method`.
    public var method: String {
        didSet { (interface, memberName) = Self.split(method) }
    }
    public var parameters: JSONObject
    public var more: Bool
    public var oneway: Bool
    /// The interface part of ``method``, up to its last `.`.
    public private(set) var interface: String
    /// The method part of ``method``, after the interface.
    public private(set) var memberName: String

    public init(method: String, parameters: JSONObject = [:], more: Bool = false, oneway: Bool = false) {
        self.method = method
        self.parameters = parameters
        self.more = more
        self.oneway = oneway
        (interface, memberName) = Self.split(method)
    }

    /// ``method`` split at its last `.`, once per call: a call's interface is asked for by the server, the
    /// delegate and the decoder in turn. Searched in its contiguous UTF-8 bytes: a search by `Character`
    /// walks grapheme boundaries, and one through the string's UTF-8 view steps index by index; the first
    /// took 7% of the daemon's time under churn.
    private static func split(_ method: String) -> (interface: String, memberName: String) {
        var method = method
        guard let offset = method.withUTF8({ bytes in bytes.lastIndex(of: UInt8(ascii: ".")) }) else {
            return ("", method)
        }
        let dot = method.utf8.index(method.utf8.startIndex, offsetBy: offset)
        return (String(method[..<dot]), String(method[method.utf8.index(after: dot)...]))
    }

    /// Decodes a call from one frame, or says which standard error answers it.
    ///
    /// The text is held to ``JSONLimits/call`` (F1): a call is a handful of values, and one that is not is
    /// refused while it is read, whatever it holds. A call with both `more` and `oneway` is refused (F3): it
    /// would open a stream whose replies nobody is to read.
    public static func decode(_ frame: some Collection<UInt8>) -> Result<VarlinkCall, VarlinkError> {
        let value: JSONValue
        switch JSONValue.parse(frame, limits: .call) {
        case .success(let parsed): value = parsed
        case .failure(let error): return .failure(refusal(error))
        }
        guard case .object(let object) = value else {
            return .failure(.invalidParameter("", message: "a call must be a JSON object"))
        }
        // One pass over the fields, the first of a repeated key counting, as the object's subscript has it.
        var given:
            (method: JSONValue?, parameters: JSONValue?, more: JSONValue?, oneway: JSONValue?, upgrade: JSONValue?)
        for (key, value) in object.fields {
            switch key {
            case "method" where given.method == nil: given.method = value
            case "parameters" where given.parameters == nil: given.parameters = value
            case "more" where given.more == nil: given.more = value
            case "oneway" where given.oneway == nil: given.oneway = value
            case "upgrade" where given.upgrade == nil: given.upgrade = value
            default: break
            }
        }
        guard let method = given.method?.stringValue, !method.isEmpty else {
            return .failure(.invalidParameter("method", message: "a call needs a \"method\" string"))
        }
        var parameters = JSONObject()
        switch given.parameters {
        case nil, .null?: break
        case .object(let object)?: parameters = object
        case let other?:
            return .failure(.invalidParameter("parameters", message: "expected an object, found \(other.typeName)"))
        }
        if let refusal = notABool("more", given.more) ?? notABool("oneway", given.oneway)
            ?? notABool("upgrade", given.upgrade)
        {
            return .failure(refusal)
        }
        let more = given.more?.boolValue ?? false
        let oneway = given.oneway?.boolValue ?? false
        if more && oneway {
            let message = "\"oneway\" with \"more\" opens a stream nobody reads: drop \"oneway\" and read the replies"
            return .failure(.invalidParameter("oneway", message: message))
        }
        return .success(VarlinkCall(method: method, parameters: parameters, more: more, oneway: oneway))
    }

    /// The error that answers a call whose text the parser refused.
    private static func refusal(_ error: JSONParseError) -> VarlinkError {
        let message: String
        switch error {
        case .invalid:
            return .invalidParameter("", message: "the message is not valid JSON")
        case .tooDeep(let maximum):
            message = "the call nests objects and arrays more than \(maximum) deep: no method takes that; flatten it"
        case .tooManyKeys(let maximum):
            message = "an object of the call has more than \(maximum) keys: no method takes that many; send fewer"
        case .tooManyValues(let maximum):
            message = "the call holds more than \(maximum) values: no method takes that many; split it into calls"
        }
        return .invalidParameter("parameters", message: message)
    }

    /// The error for a flag given as something other than a bool or `null`.
    private static func notABool(_ flag: String, _ value: JSONValue?) -> VarlinkError? {
        guard let value, value != .null, value.boolValue == nil else { return nil }
        return .invalidParameter(flag, message: "expected a bool, found \(value.typeName)")
    }

    /// The frame of this call, without the NUL.
    public var serialized: String {
        var object: JSONObject = ["method": .string(method)]
        if !parameters.fields.isEmpty { object["parameters"] = .object(parameters) }
        if more { object["more"] = .bool(true) }
        if oneway { object["oneway"] = .bool(true) }
        return JSONValue.object(object).serialized
    }
}

/// A Varlink error reply: a qualified name and its parameters.
public struct VarlinkError: Error, Sendable, Hashable {
    public var name: String
    public var parameters: JSONObject

    public init(name: String, parameters: JSONObject = [:]) {
        self.name = name
        self.parameters = parameters
    }

    public static func invalidParameter(_ parameter: String, message: String) -> VarlinkError {
        VarlinkError(
            name: WireErrorName.invalidParameter.name,
            parameters: ["parameter": .string(parameter), "message": .string(message)]
        )
    }

    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError(
            name: WireErrorName.methodNotFound.name,
            parameters: [
                "method": .string(method),
                "message": .string("no method \(method): see GetInterfaceDescription for the methods there are"),
            ]
        )
    }

    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError(
            name: WireErrorName.interfaceNotFound.name,
            parameters: [
                "interface": .string(interface),
                "message": .string("no interface \(interface): GetInfo lists the interfaces this server offers"),
            ]
        )
    }

    public static let expectedMore = VarlinkError(
        name: WireErrorName.expectedMore.name,
        parameters: ["message": .string("this method streams: call it with \"more\": true")]
    )
}

/// A reply frame: `{"parameters"?, "continues"?, "error"?}`.
public struct VarlinkReply: Sendable, Hashable {
    public var parameters: JSONObject
    public var continues: Bool
    public var error: String?

    public init(parameters: JSONObject = [:], continues: Bool = false, error: String? = nil) {
        self.parameters = parameters
        self.continues = continues
        self.error = error
    }

    public init(error: VarlinkError) {
        self.init(parameters: error.parameters, error: error.name)
    }

    /// Decodes a reply frame (for clients).
    public static func decode(_ frame: some Collection<UInt8>) -> VarlinkReply? {
        guard case .object(let object)? = JSONValue.parse(frame) else { return nil }
        return VarlinkReply(
            parameters: object["parameters"]?.objectValue ?? [:],
            continues: object["continues"]?.boolValue ?? false,
            error: object["error"]?.stringValue
        )
    }

    /// Appends the reply's JSON text (without the NUL).
    public func write(to out: inout String) {
        var object = JSONObject()
        if let error { object["error"] = .string(error) }
        object["parameters"] = .object(parameters)
        if continues { object["continues"] = .bool(true) }
        JSONValue.object(object).write(to: &out)
    }
}
