/// One Varlink method call: `{"method", "parameters"?, "more"?, "oneway"?}`.
public struct VarlinkCall: Sendable, Hashable {
    /// The fully qualified method name, `interface.Method`.
    public var method: String
    public var parameters: JSONObject
    public var more: Bool
    public var oneway: Bool

    public init(method: String, parameters: JSONObject = [:], more: Bool = false, oneway: Bool = false) {
        self.method = method
        self.parameters = parameters
        self.more = more
        self.oneway = oneway
    }

    /// The interface part of ``method``.
    public var interface: String {
        guard let dot = lastDot else { return "" }
        return String(method[..<dot])
    }

    /// The method part of ``method``, after the interface.
    public var memberName: String {
        guard let dot = lastDot else { return method }
        return String(method[method.utf8.index(after: dot)...])
    }

    /// Where the last `.` of ``method`` is. Searched in its contiguous UTF-8 bytes: a search by `Character`
    /// walks grapheme boundaries, and one through the string's UTF-8 view steps index by index; the first
    /// took 7% of the daemon's time under churn, where every call asks for its interface several times.
    private var lastDot: String.Index? {
        var method = method
        let offset = method.withUTF8 { bytes in bytes.lastIndex(of: UInt8(ascii: ".")) }
        return offset.map { method.utf8.index(method.utf8.startIndex, offsetBy: $0) }
    }

    /// Decodes a call from one frame, or says which standard error answers it.
    public static func decode(_ frame: some Collection<UInt8>) -> Result<VarlinkCall, VarlinkError> {
        guard let value = JSONValue.parse(frame) else {
            return .failure(.invalidParameter("", message: "the message is not valid JSON"))
        }
        guard case .object(let object) = value else {
            return .failure(.invalidParameter("", message: "a call must be a JSON object"))
        }
        guard let method = object["method"]?.stringValue, !method.isEmpty else {
            return .failure(.invalidParameter("method", message: "a call needs a \"method\" string"))
        }
        var parameters = JSONObject()
        switch object["parameters"] {
        case nil, .null?: break
        case .object(let given)?: parameters = given
        case let other?:
            return .failure(.invalidParameter("parameters", message: "expected an object, found \(other.typeName)"))
        }
        for flag in ["more", "oneway", "upgrade"] {
            if let given = object[flag], given != .null, given.boolValue == nil {
                return .failure(.invalidParameter(flag, message: "expected a bool, found \(given.typeName)"))
            }
        }
        return .success(
            VarlinkCall(
                method: method,
                parameters: parameters,
                more: object["more"]?.boolValue ?? false,
                oneway: object["oneway"]?.boolValue ?? false
            )
        )
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
            name: "org.varlink.service.InvalidParameter",
            parameters: ["parameter": .string(parameter), "message": .string(message)]
        )
    }

    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError(
            name: "org.varlink.service.MethodNotFound",
            parameters: [
                "method": .string(method),
                "message": .string("no method \(method): see GetInterfaceDescription for the methods there are"),
            ]
        )
    }

    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError(
            name: "org.varlink.service.InterfaceNotFound",
            parameters: [
                "interface": .string(interface),
                "message": .string("no interface \(interface): GetInfo lists the interfaces this server offers"),
            ]
        )
    }

    public static let expectedMore = VarlinkError(
        name: "org.varlink.service.ExpectedMore",
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
