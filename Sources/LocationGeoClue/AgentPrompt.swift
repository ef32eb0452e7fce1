import JSON

/// A locd prompt as a GeoClue agent is asked it: the app and its user, the level `AuthorizeApp` names, and the answer
/// its reply becomes (SEMANTICS G11, G14, H7).
struct AgentPrompt: Sendable, Equatable {
    let id: String
    let appID: String
    /// The uid whose app it is (the `Prompt`'s `user`): only that uid's GeoClue agent is asked it, and its answer
    /// decides for that uid's app alone (H1, H7).
    let user: UInt32
    /// Whether locd offers full accuracy by default (`defaultAccuracy` full): then the agent is asked for exact.
    let fullByDefault: Bool
    /// Whether locd's prompt offers Always Allow, as it does for an app with no window (L14): then "authorized" is it.
    var offersAlways = false

    /// The `authorization` prompt of a user's app in `Admin.Prompts`' reply; `nil` for the other kinds (Always
    /// upgrade, temporary full accuracy, Always reconfirmation), which stay for locd's own agents, and for a prompt
    /// that names no user, which no GeoClue agent may answer for.
    init?(_ value: JSONValue) {
        guard value["kind"]?.stringValue == "authorization", let id = value["id"]?.stringValue,
            let appID = value["appId"]?.stringValue,
            let user = value["user"]?.intValue.flatMap({ UInt32(exactly: $0) })
        else { return nil }
        self.init(id: id, appID: appID, user: user, fullByDefault: value["defaultAccuracy"]?.stringValue != "reduced")
        offersAlways = value["options"]?.arrayValue?.contains(.string("allowAlways")) ?? false
    }

    init(id: String, appID: String, user: UInt32, fullByDefault: Bool) {
        self.id = id
        self.appID = appID
        self.user = user
        self.fullByDefault = fullByDefault
    }

    /// The `req_accuracy_level` of `AuthorizeApp`: what the waiting GeoClue client requested, else exact for a
    /// prompt that offers full accuracy and city for one that does not.
    func requestedLevel(client: UInt32?) -> UInt32 {
        client ?? (fullByDefault ? AccuracyLevel.exact : AccuracyLevel.city)
    }

    /// An `AnswerPrompt` answer and its accuracy.
    struct Answer: Sendable, Equatable {
        var answer: String
        /// `full` or `reduced`; `nil` for deny.
        var accuracy: String?
    }

    /// What an agent's `AuthorizeApp` reply answers: authorized at street or exact → allowWhileUsing with full
    /// accuracy; authorized at a lower level → allowWhileUsing reduced; authorized at level 0 (none) or not
    /// authorized → deny. A prompt that offers Always Allow instead (an app with no window, L14) is answered
    /// allowAlways.
    static func answer(authorized: Bool, allowedLevel: UInt32, always: Bool = false) -> Answer {
        guard authorized, allowedLevel > AccuracyLevel.none else { return Answer(answer: "deny", accuracy: nil) }
        return Answer(
            answer: always ? "allowAlways" : "allowWhileUsing",
            accuracy: AccuracyLevel.wantsFullAccuracy(allowedLevel) ? "full" : "reduced"
        )
    }
}
