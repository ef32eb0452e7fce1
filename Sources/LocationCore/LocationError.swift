/// Every error locd answers, one case per error of PROTOCOL.md; LocationWireErrors gives each its wire name.
///
/// Each case carries the error's parameters and enough context for a ``message`` that says what to do.
package enum LocationError: Error, Hashable, Sendable {
    // io.locd.App
    case helloRequired
    /// `brokered`: a broker spoke for the app, so `unknown-brokered-apps` decided (I11), not `allow-unknown-apps`.
    case appUnknown(appID: String, brokered: Bool = false)
    case noSuchSession(id: String)
    case sessionInvalidated(id: String)
    /// `legacyKey`: a key of an older iOS that the manifest has instead, named so the message can say what replaces it.
    case usageDescriptionMissing(key: String, manifest: String, legacyKey: String? = nil)
    case unknownPurposeKey(purposeKey: String, manifest: String)
    case limitExceeded(limit: String, maximum: Int)
    case backgroundActivityUnavailable(reason: String)
    // io.locd.Admin
    case noSuchApp(appID: String)
    case noSuchPrompt(id: String)
    case invalidAnswer(id: String, answer: String)
    // org.varlink.service
    case methodNotFound(method: String)
    case interfaceNotFound(interface: String)
    case invalidParameter(parameter: String, reason: String)
    case expectedMore
    case permissionDenied(reason: String)

    /// A sentence for people: what went wrong and what to do about it.
    package var message: String {
        switch self {
        case .helloRequired:
            "call io.locd.App.Hello(appId) on this connection before any other io.locd.App method"
        case .appUnknown(let appID, true):
            "no manifest for \(appID), and unknown-brokered-apps = \"deny\": install apps.d/\(appID).toml, or set "
                + "unknown-brokered-apps = \"ask\" in locd.toml to let the person decide"
        case .appUnknown(let appID, false):
            "no manifest for \(appID): install apps.d/\(appID).toml (or set allow-unknown-apps = true for development)"
        case .noSuchSession(let id):
            "no session \(id) belongs to this app: use an id returned by CreateSession or ListSessions"
        case .sessionInvalidated(let id):
            "session \(id) has ended and cannot be used again: create a new session"
        case .usageDescriptionMissing(let key, let manifest, nil):
            "add \(key) to \(manifest), then reload locd"
        case .usageDescriptionMissing(let key, let manifest, let legacy?):
            "add \(key) to \(manifest), then reload locd: \(legacy) is the iOS 8 key, which locd does not read;"
                + " use \(Manifest.alwaysKey) (with \(Manifest.whenInUseKey)) instead"
        case .unknownPurposeKey(let key, let manifest):
            "add \(key) to [\(Manifest.temporaryKey)] in \(manifest), then reload locd"
        case .limitExceeded(let limit, let maximum) where limit == "max-conditions-per-app":
            "the app already monitors \(maximum) conditions (\(limit)): remove some first, or raise \(limit) in locd.toml"
        case .limitExceeded(let limit, let maximum) where limit == "max-apps-per-uid":
            "the user that runs this app already has \(maximum) apps (\(limit)): an "
                + "administrator can forget the ones no longer used with `locctl forget --user NAME` (locctl apps "
                + "--user NAME lists them), or raise \(limit) in locd.toml"
        case .limitExceeded(let limit, let maximum) where limit == "max-sessions-per-uid":
            "this user's apps already hold \(maximum) sessions together (\(limit)): end some first, or have an "
                + "administrator raise \(limit) in locd.toml"
        case .limitExceeded(let limit, let maximum) where limit == "max-agents-per-uid":
            "this user already has \(maximum) Prompts and Watch streams open (\(limit)): close one first"
        case .limitExceeded(let limit, let maximum):
            "the app already has \(maximum) (\(limit)): end some first, or raise \(limit) in locd.toml"
        case .backgroundActivityUnavailable(let reason):
            reason
        case .noSuchApp(let appID):
            "no app \(appID) is known: check `locctl apps` for the ids locd knows"
        case .noSuchPrompt(let id):
            "prompt \(id) is not waiting for an answer: answer the prompt the Prompts stream sent last for its app"
        case .invalidAnswer(let id, let answer):
            "\(answer) is not one of the options of prompt \(id): answer with one of the prompt's options"
        case .methodNotFound(let method):
            "no method \(method): see GetInterfaceDescription for the methods this interface has"
        case .interfaceNotFound(let interface):
            "no interface \(interface): this server offers io.locd.App, io.locd.Admin and org.varlink.service"
        case .invalidParameter(let parameter, let reason):
            "parameter \(parameter): \(reason)"
        case .expectedMore:
            "this method streams: call it with \"more\": true"
        case .permissionDenied(let reason):
            reason
        }
    }
}
