import LocationCore
import LocationProtocol

extension LocationError {
    /// The wire's error for this one: its name and the IDL's parameters. The context only the message uses (who
    /// brokered, which manifest, why) stays behind.
    package var wireError: WireError {
        switch self {
        case .helloRequired: .helloRequired
        case .appUnknown(let appID, _): .appUnknown(appId: appID)
        case .noSuchSession(let id): .noSuchSession(id: id)
        case .sessionInvalidated(let id): .sessionInvalidated(id: id)
        case .usageDescriptionMissing(let key, _, _): .usageDescriptionMissing(key: key)
        case .unknownPurposeKey(let key, _): .unknownPurposeKey(purposeKey: key)
        case .limitExceeded(let limit, let maximum): .limitExceeded(limit: limit, maximum: maximum)
        case .backgroundActivityUnavailable(let reason): .backgroundActivityUnavailable(reason: reason)
        case .noSuchApp(let appID): .noSuchApp(appId: appID)
        case .noSuchPrompt(let id): .noSuchPrompt(id: id)
        case .invalidAnswer(let id, let answer): .invalidAnswer(id: id, answer: answer)
        case .methodNotFound(let method): .methodNotFound(method: method)
        case .interfaceNotFound(let interface): .interfaceNotFound(interface: interface)
        case .invalidParameter(let parameter, _): .invalidParameter(parameter: parameter)
        case .expectedMore: .expectedMore
        case .permissionDenied: .permissionDenied
        }
    }

    /// The fully qualified Varlink error name.
    package var wireName: String { wireError.name.rawValue }
}
