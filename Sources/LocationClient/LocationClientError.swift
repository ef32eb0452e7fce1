import LocationProtocol
import Varlink

/// Why a ``LocationClient`` call failed: one case per `io.locd.App` error of the protocol, the standard Varlink
/// errors locd answers with, and what can go wrong with the connection itself.
///
/// Every error the daemon sends carries its ``message``, which says what to do about it.
public enum LocationClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `io.locd.App.HelloRequired`: a call came before `Hello` (a bug in the library if it ever happens).
    case helloRequired(message: String)
    /// `io.locd.App.AppUnknown`: no manifest names this app id.
    case appUnknown(appID: String, message: String)
    /// `io.locd.App.NoSuchSession`: the session is not this app's, or never existed.
    case noSuchSession(id: String, message: String)
    /// `io.locd.App.SessionInvalidated`: the session has ended and cannot be used again.
    case sessionInvalidated(id: String, message: String)
    /// `io.locd.App.UsageDescriptionMissing`: the manifest lacks the usage description the request needs.
    case usageDescriptionMissing(key: String, message: String)
    /// `io.locd.App.UnknownPurposeKey`: the purpose key is not in `NSLocationTemporaryUsageDescriptionDictionary`.
    case unknownPurposeKey(purposeKey: String, message: String)
    /// `io.locd.App.LimitExceeded`: the app already holds the most sessions or clients allowed.
    case limitExceeded(limit: String, maximum: Int, message: String)
    /// `io.locd.App.BackgroundActivityUnavailable`: the app cannot begin a background activity session now.
    case backgroundActivityUnavailable(reason: String, message: String)
    /// `org.varlink.service.PermissionDenied`: this process may not speak for the app (its manifest's `identity`).
    case permissionDenied(message: String)
    /// `org.varlink.service.InvalidParameter`: the daemon refused a parameter.
    case invalidParameter(parameter: String, message: String)
    /// Any other Varlink error, by name.
    case daemonError(name: String, message: String)
    /// Nothing listens on the socket, or the daemon did not come back within the reconnection policy's limit.
    case daemonUnavailable(socketPath: String, reason: String)
    /// The connection broke while a call was waiting for its reply; whether the call took effect is unknown.
    case connectionLost
    /// The client was closed (``LocationClient/close()`` or ``LocationClient/goodbye()``).
    case closed
    /// The daemon sent a reply this library cannot read.
    case unexpectedReply(String)

    /// The Varlink error name, for errors the daemon sent.
    public var varlinkName: String? {
        switch self {
        case .helloRequired: WireErrorName.helloRequired.name
        case .appUnknown: WireErrorName.appUnknown.name
        case .noSuchSession: WireErrorName.noSuchSession.name
        case .sessionInvalidated: WireErrorName.sessionInvalidated.name
        case .usageDescriptionMissing: WireErrorName.usageDescriptionMissing.name
        case .unknownPurposeKey: WireErrorName.unknownPurposeKey.name
        case .limitExceeded: WireErrorName.limitExceeded.name
        case .backgroundActivityUnavailable: WireErrorName.backgroundActivityUnavailable.name
        case .permissionDenied: WireErrorName.permissionDenied.name
        case .invalidParameter: WireErrorName.invalidParameter.name
        case .daemonError(let name, _): name
        case .daemonUnavailable, .connectionLost, .closed, .unexpectedReply: nil
        }
    }

    /// What went wrong and what to do about it.
    public var message: String {
        switch self {
        case .helloRequired(let message), .appUnknown(_, let message), .noSuchSession(_, let message),
            .sessionInvalidated(_, let message), .usageDescriptionMissing(_, let message),
            .unknownPurposeKey(_, let message), .limitExceeded(_, _, let message),
            .backgroundActivityUnavailable(_, let message), .permissionDenied(let message),
            .invalidParameter(_, let message), .daemonError(_, let message):
            message
        case .daemonUnavailable(let path, let reason):
            "cannot reach locd at \(path): \(reason) (is locd running? set LOCD_SOCKET or pass socketPath)"
        case .connectionLost:
            "the connection to locd broke before the reply: check the state (for instance ListSessions) and retry"
        case .closed:
            "this LocationClient was closed: connect again with LocationClient.connect"
        case .unexpectedReply(let detail):
            "locd sent a reply this client cannot read (\(detail)): use a LocationClient matching the daemon's version"
        }
    }

    public var description: String {
        if let varlinkName { return "\(varlinkName): \(message)" }
        return message
    }

    /// The error a Varlink error reply stands for: one of the protocol's with its parameters, else any other by name.
    package init(_ error: VarlinkError) {
        let message = error.parameters["message"]?.stringValue ?? error.name
        switch WireError(name: error.name, parameters: error.parameters) {
        case .helloRequired?: self = .helloRequired(message: message)
        case .appUnknown(let appID)?: self = .appUnknown(appID: appID, message: message)
        case .noSuchSession(let id)?: self = .noSuchSession(id: id, message: message)
        case .sessionInvalidated(let id)?: self = .sessionInvalidated(id: id, message: message)
        case .usageDescriptionMissing(let key)?: self = .usageDescriptionMissing(key: key, message: message)
        case .unknownPurposeKey(let key)?: self = .unknownPurposeKey(purposeKey: key, message: message)
        case .limitExceeded(let limit, let maximum)?:
            self = .limitExceeded(limit: limit, maximum: maximum, message: message)
        case .backgroundActivityUnavailable(let reason)?:
            self = .backgroundActivityUnavailable(reason: reason, message: message)
        case .permissionDenied?: self = .permissionDenied(message: message)
        case .invalidParameter(let parameter)?: self = .invalidParameter(parameter: parameter, message: message)
        default: self = .daemonError(name: error.name, message: message)
        }
    }
}
