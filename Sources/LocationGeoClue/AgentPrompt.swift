import JSON

/// A locd prompt as a GeoClue agent is asked it: the app, the level `AuthorizeApp` names, and the answer its reply
/// becomes (SEMANTICS G11, G14).
struct AgentPrompt: Sendable, Equatable {
    let id: String
    let appID: String
    /// Whether locd offers full accuracy by default (`defaultAccuracy` full): then the agent is asked for exact.
    let fullByDefault: Bool

    /// The `authorization` prompt of `Admin.Prompts`' reply; `nil` for the other kinds (Always upgrade, temporary
    /// full accuracy, Always reconfirmation), which stay for locd's own agents.
    init?(_ value: JSONValue) {
        guard value["kind"]?.stringValue == "authorization", let id = value["id"]?.stringValue,
            let appID = value["appId"]?.stringValue
        else { return nil }
        self.init(id: id, appID: appID, fullByDefault: value["defaultAccuracy"]?.stringValue != "reduced")
    }

    init(id: String, appID: String, fullByDefault: Bool) {
        self.id = id
        self.appID = appID
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
    /// authorized → deny.
    static func answer(authorized: Bool, allowedLevel: UInt32) -> Answer {
        guard authorized, allowedLevel > AccuracyLevel.none else { return Answer(answer: "deny", accuracy: nil) }
        return Answer(
            answer: "allowWhileUsing",
            accuracy: AccuracyLevel.wantsFullAccuracy(allowedLevel) ? "full" : "reduced"
        )
    }
}
