import JSON

/// `Prompt` of io.locd.Admin: what an agent shows and answers (`Prompts`' `prompt`).
package struct WirePrompt: Hashable, Sendable {
    package var id: String
    package var appId: String
    /// `authorization`, `alwaysUpgrade`, `temporaryFullAccuracy` or `alwaysReconfirm`.
    package var kind: String
    /// The app's words: its usage description, or for temporary full accuracy the purpose key's text.
    package var usageDescription: String
    package var purposeKey: String?
    /// The answers it offers, by their wire names.
    package var options: [String]
    /// `full` or `reduced`: the accuracy shown at first.
    package var defaultAccuracy: String
    /// Whether the answer carries an accuracy the person chooses (N2).
    package var accuracyToggle: Bool
    /// Unix time in seconds.
    package var raisedAt: Double
    /// The uid whose app asks (SEMANTICS H1).
    package var user: UInt32?
    /// Whether a broker speaks for a process of the app (N6); written only when true.
    package var brokered: Bool

    package init(
        id: String,
        appId: String,
        kind: String,
        usageDescription: String,
        purposeKey: String? = nil,
        options: [String],
        defaultAccuracy: String = "full",
        accuracyToggle: Bool = false,
        raisedAt: Double = 0,
        user: UInt32? = nil,
        brokered: Bool = false
    ) {
        self.id = id
        self.appId = appId
        self.kind = kind
        self.usageDescription = usageDescription
        self.purposeKey = purposeKey
        self.options = options
        self.defaultAccuracy = defaultAccuracy
        self.accuracyToggle = accuracyToggle
        self.raisedAt = raisedAt
        self.user = user
        self.brokered = brokered
    }

    /// Reads one; nil without its id, app or kind, which no answer could then name. What else is missing reads as
    /// empty, `full`, false or absent.
    package init?(json value: JSONValue?) {
        guard let value, let id = value["id"]?.stringValue, let appId = value["appId"]?.stringValue,
            let kind = value["kind"]?.stringValue
        else { return nil }
        self.init(
            id: id,
            appId: appId,
            kind: kind,
            usageDescription: value["usageDescription"]?.stringValue ?? "",
            purposeKey: value["purposeKey"]?.stringValue,
            options: value["options"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            defaultAccuracy: value["defaultAccuracy"]?.stringValue ?? "full",
            accuracyToggle: value["accuracyToggle"]?.boolValue ?? false,
            raisedAt: value["raisedAt"]?.doubleValue ?? 0,
            user: value["user"]?.intValue.flatMap(UInt32.init(exactly:)),
            brokered: value["brokered"]?.boolValue ?? false
        )
    }

    package var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("id", .string(id)), ("appId", .string(appId)), ("kind", .string(kind)),
            ("usageDescription", .string(usageDescription)),
        ]
        if let purposeKey { fields.append(("purposeKey", .string(purposeKey))) }
        fields.append(("options", .array(options.map { .string($0) })))
        fields.append(("defaultAccuracy", .string(defaultAccuracy)))
        fields.append(("accuracyToggle", .bool(accuracyToggle)))
        fields.append(("raisedAt", .double(raisedAt)))
        if let user { fields.append(("user", .int(Int64(user)))) }
        if brokered { fields.append(("brokered", .bool(true))) }
        return .object(JSONObject(fields))
    }
}
