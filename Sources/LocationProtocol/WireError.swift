import JSON

/// Every Varlink error name locd, locd-network and the standard interface answer (PROTOCOL.md); the raw value is
/// the fully qualified name.
package enum WireErrorName: String, CaseIterable, Hashable, Sendable {
    // io.locd.App
    case helloRequired = "io.locd.App.HelloRequired"
    case appUnknown = "io.locd.App.AppUnknown"
    case noSuchSession = "io.locd.App.NoSuchSession"
    case sessionInvalidated = "io.locd.App.SessionInvalidated"
    case usageDescriptionMissing = "io.locd.App.UsageDescriptionMissing"
    case unknownPurposeKey = "io.locd.App.UnknownPurposeKey"
    case limitExceeded = "io.locd.App.LimitExceeded"
    case backgroundActivityUnavailable = "io.locd.App.BackgroundActivityUnavailable"
    // io.locd.Admin
    case noSuchApp = "io.locd.Admin.NoSuchApp"
    case noSuchPrompt = "io.locd.Admin.NoSuchPrompt"
    case invalidAnswer = "io.locd.Admin.InvalidAnswer"
    // io.locd.NetworkLocation
    case invalidSettings = "io.locd.NetworkLocation.InvalidSettings"
    case networkLimitExceeded = "io.locd.NetworkLocation.LimitExceeded"
    // org.varlink.service
    case methodNotFound = "org.varlink.service.MethodNotFound"
    case interfaceNotFound = "org.varlink.service.InterfaceNotFound"
    case invalidParameter = "org.varlink.service.InvalidParameter"
    case expectedMore = "org.varlink.service.ExpectedMore"
    case permissionDenied = "org.varlink.service.PermissionDenied"

    /// The fully qualified name.
    package var name: String { rawValue }
}

/// An error of the wire with the parameters its IDL declares; every reply also carries a `message` for people,
/// which is not part of the value (``parameters(message:)`` adds it, ``init(name:parameters:)`` reads past it).
package enum WireError: Hashable, Sendable {
    case helloRequired
    case appUnknown(appId: String)
    case noSuchSession(id: String)
    case sessionInvalidated(id: String)
    case usageDescriptionMissing(key: String)
    case unknownPurposeKey(purposeKey: String)
    case limitExceeded(limit: String, maximum: Int)
    case backgroundActivityUnavailable(reason: String)
    case noSuchApp(appId: String)
    case noSuchPrompt(id: String)
    case invalidAnswer(id: String, answer: String)
    case invalidSettings(field: String, reason: String)
    case networkLimitExceeded(limit: String, maximum: Int)
    case methodNotFound(method: String)
    case interfaceNotFound(interface: String)
    case invalidParameter(parameter: String)
    case expectedMore
    case permissionDenied

    /// The error's name.
    package var name: WireErrorName {
        switch self {
        case .helloRequired: .helloRequired
        case .appUnknown: .appUnknown
        case .noSuchSession: .noSuchSession
        case .sessionInvalidated: .sessionInvalidated
        case .usageDescriptionMissing: .usageDescriptionMissing
        case .unknownPurposeKey: .unknownPurposeKey
        case .limitExceeded: .limitExceeded
        case .backgroundActivityUnavailable: .backgroundActivityUnavailable
        case .noSuchApp: .noSuchApp
        case .noSuchPrompt: .noSuchPrompt
        case .invalidAnswer: .invalidAnswer
        case .invalidSettings: .invalidSettings
        case .networkLimitExceeded: .networkLimitExceeded
        case .methodNotFound: .methodNotFound
        case .interfaceNotFound: .interfaceNotFound
        case .invalidParameter: .invalidParameter
        case .expectedMore: .expectedMore
        case .permissionDenied: .permissionDenied
        }
    }

    /// The IDL's parameters in its order, then `message` when there is one.
    package func parameters(message: String?) -> JSONObject {
        var fields: [(String, JSONValue)]
        switch self {
        case .helloRequired, .expectedMore, .permissionDenied: fields = []
        case .appUnknown(let appId), .noSuchApp(let appId): fields = [("appId", .string(appId))]
        case .noSuchSession(let id), .sessionInvalidated(let id), .noSuchPrompt(let id): fields = [("id", .string(id))]
        case .usageDescriptionMissing(let key): fields = [("key", .string(key))]
        case .unknownPurposeKey(let key): fields = [("purposeKey", .string(key))]
        case .limitExceeded(let limit, let maximum), .networkLimitExceeded(let limit, let maximum):
            fields = [("limit", .string(limit)), ("maximum", .int(Int64(maximum)))]
        case .backgroundActivityUnavailable(let reason): fields = [("reason", .string(reason))]
        case .invalidAnswer(let id, let answer): fields = [("id", .string(id)), ("answer", .string(answer))]
        case .invalidSettings(let field, let reason): fields = [("field", .string(field)), ("reason", .string(reason))]
        case .methodNotFound(let method): fields = [("method", .string(method))]
        case .interfaceNotFound(let interface): fields = [("interface", .string(interface))]
        case .invalidParameter(let parameter): fields = [("parameter", .string(parameter))]
        }
        if let message { fields.append(("message", .string(message))) }
        return JSONObject(fields)
    }

    /// The error an error reply names, read from its parameters; nil for a name that is none of these or parameters
    /// that are not the IDL's.
    package init?(name: String, parameters: JSONObject) {
        guard let known = WireErrorName(rawValue: name) else { return nil }
        let reader = ErrorParameters(parameters)
        guard let error = reader.error(known) else { return nil }
        self = error
    }
}

/// Reads an error reply's parameters by name.
private struct ErrorParameters {
    let parameters: JSONObject

    init(_ parameters: JSONObject) { self.parameters = parameters }

    func string(_ name: String) -> String? { parameters[name]?.stringValue }

    func int(_ name: String) -> Int? { parameters[name]?.intValue.flatMap { Int(exactly: $0) } }

    func error(_ name: WireErrorName) -> WireError? {
        switch name {
        case .helloRequired: .helloRequired
        case .expectedMore: .expectedMore
        case .permissionDenied: .permissionDenied
        case .appUnknown: string("appId").map { .appUnknown(appId: $0) }
        case .noSuchApp: string("appId").map { .noSuchApp(appId: $0) }
        case .noSuchSession: string("id").map { .noSuchSession(id: $0) }
        case .sessionInvalidated: string("id").map { .sessionInvalidated(id: $0) }
        case .noSuchPrompt: string("id").map { .noSuchPrompt(id: $0) }
        case .usageDescriptionMissing: string("key").map { .usageDescriptionMissing(key: $0) }
        case .unknownPurposeKey: string("purposeKey").map { .unknownPurposeKey(purposeKey: $0) }
        case .backgroundActivityUnavailable: string("reason").map { .backgroundActivityUnavailable(reason: $0) }
        case .methodNotFound: string("method").map { .methodNotFound(method: $0) }
        case .interfaceNotFound: string("interface").map { .interfaceNotFound(interface: $0) }
        case .invalidParameter: string("parameter").map { .invalidParameter(parameter: $0) }
        case .limitExceeded, .networkLimitExceeded:
            limit(name)
        case .invalidAnswer:
            string("id").flatMap { id in string("answer").map { .invalidAnswer(id: id, answer: $0) } }
        case .invalidSettings:
            string("field").flatMap { field in string("reason").map { .invalidSettings(field: field, reason: $0) } }
        }
    }

    private func limit(_ name: WireErrorName) -> WireError? {
        guard let limit = string("limit"), let maximum = int("maximum") else { return nil }
        return name == .limitExceeded
            ? .limitExceeded(limit: limit, maximum: maximum) : .networkLimitExceeded(limit: limit, maximum: maximum)
    }
}
