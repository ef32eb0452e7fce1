import JSON

/// `AppEntry` of io.locd.Admin: an app as `ListApps` lists it.
package struct WireAppEntry: Hashable, Sendable {
    /// `Policy`: the administrator's setting of the app for every user (SEMANTICS H5).
    package struct Policy: Hashable, Sendable {
        /// `never`, `whileUsing` or `always`.
        package var setting: String?
        package var precise: Bool?

        package init(setting: String? = nil, precise: Bool? = nil) {
            self.setting = setting
            self.precise = precise
        }
    }

    /// Who made an app with no manifest of its own (F20): a uid, or not known.
    package enum Owner: Hashable, Sendable {
        case uid(UInt32)
        case unknown
    }

    package var appId: String
    package var manifest: String
    /// `notRunning`, `foreground`, `background` or `terminated`.
    package var state: String
    package var inUse: Bool
    package var usingLocationInBackground: Bool
    package var authorization: WireAuthorization
    package var clients: Int
    package var sessions: Int
    package var owner: Owner?
    /// The uid whose app this is (SEMANTICS H1); absent for an installed app's entry of no user (H2).
    package var user: UInt32?
    package var policy: Policy?
    package var stateSource: String?

    package init(
        appId: String,
        manifest: String,
        state: String,
        inUse: Bool,
        usingLocationInBackground: Bool,
        authorization: WireAuthorization,
        clients: Int,
        sessions: Int,
        owner: Owner? = nil,
        user: UInt32? = nil,
        policy: Policy? = nil,
        stateSource: String? = nil
    ) {
        self.appId = appId
        self.manifest = manifest
        self.state = state
        self.inUse = inUse
        self.usingLocationInBackground = usingLocationInBackground
        self.authorization = authorization
        self.clients = clients
        self.sessions = sessions
        self.owner = owner
        self.user = user
        self.policy = policy
        self.stateSource = stateSource
    }

    /// Reads one; nil without its app id, state or authorization. Missing counts are 0, missing Bools false.
    package init?(json value: JSONValue?) {
        guard let value, let appId = value["appId"]?.stringValue, let state = value["state"]?.stringValue,
            let authorization = WireAuthorization(json: value["authorization"])
        else { return nil }
        let owner: Owner? =
            if let uid = value["owner"]?.intValue.flatMap(UInt32.init(exactly:)) {
                .uid(uid)
            } else if value["ownerUnknown"]?.boolValue == true {
                .unknown
            } else {
                nil
            }
        self.init(
            appId: appId,
            manifest: value["manifest"]?.stringValue ?? "",
            state: state,
            inUse: value["inUse"]?.boolValue ?? false,
            usingLocationInBackground: value["usingLocationInBackground"]?.boolValue ?? false,
            authorization: authorization,
            clients: Int(value["clients"]?.intValue ?? 0),
            sessions: Int(value["sessions"]?.intValue ?? 0),
            owner: owner,
            user: value["user"]?.intValue.flatMap(UInt32.init(exactly:)),
            policy: value["policy"]?.objectValue.map {
                Policy(setting: $0["setting"]?.stringValue, precise: $0["precise"]?.boolValue)
            },
            stateSource: value["stateSource"]?.stringValue
        )
    }

    /// `owner` (a uid) or `ownerUnknown` only for an app with no manifest of its own (F20).
    package var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("appId", .string(appId)), ("manifest", .string(manifest)), ("state", .string(state)),
            ("inUse", .bool(inUse)), ("usingLocationInBackground", .bool(usingLocationInBackground)),
            ("authorization", authorization.json), ("clients", .int(Int64(clients))),
            ("sessions", .int(Int64(sessions))),
        ]
        switch owner {
        case .uid(let uid)?: fields.append(("owner", .int(Int64(uid))))
        case .unknown?: fields.append(("ownerUnknown", .bool(true)))
        case nil: break
        }
        if let user { fields.append(("user", .int(Int64(user)))) }
        if let policy {
            var policyFields: [(String, JSONValue)] = []
            if let setting = policy.setting { policyFields.append(("setting", .string(setting))) }
            if let precise = policy.precise { policyFields.append(("precise", .bool(precise))) }
            fields.append(("policy", .object(JSONObject(policyFields))))
        }
        if let stateSource { fields.append(("stateSource", .string(stateSource))) }
        return .object(JSONObject(fields))
    }
}

/// `Event` of io.locd.Admin: one state change as `Watch` sends it.
package struct WireEvent: Hashable, Sendable {
    /// `sessionCreated`, `sessionChanged`, `sessionEnded`, `appStateChanged`, `authorizationChanged`,
    /// `promptRaised`, `promptResolved` or `servicesChanged`.
    package var kind: String
    package var appId: String?
    /// The user whose app it is about (SEMANTICS H1); a `servicesChanged` with one is that user's switch (H6).
    package var user: UInt32?
    package var sessionId: String?
    package var detail: String
    /// Unix time in seconds.
    package var timestamp: Double

    package init(
        kind: String,
        appId: String? = nil,
        user: UInt32? = nil,
        sessionId: String? = nil,
        detail: String,
        timestamp: Double
    ) {
        self.kind = kind
        self.appId = appId
        self.user = user
        self.sessionId = sessionId
        self.detail = detail
        self.timestamp = timestamp
    }

    /// Reads one; nil without its kind. A missing detail is empty, a missing time 0.
    package init?(json value: JSONValue?) {
        guard let value, let kind = value["kind"]?.stringValue else { return nil }
        self.init(
            kind: kind,
            appId: value["appId"]?.stringValue,
            user: value["user"]?.intValue.flatMap(UInt32.init(exactly:)),
            sessionId: value["sessionId"]?.stringValue,
            detail: value["detail"]?.stringValue ?? "",
            timestamp: value["timestamp"]?.doubleValue ?? 0
        )
    }

    /// Fields appended in order: a thousand clients gone at once make 200,000 of these.
    package var json: JSONValue {
        var fields: [(String, JSONValue)] = []
        fields.reserveCapacity(6)
        fields.append(("kind", .string(kind)))
        if let appId { fields.append(("appId", .string(appId))) }
        if let user { fields.append(("user", .int(Int64(user)))) }
        if let sessionId { fields.append(("sessionId", .string(sessionId))) }
        fields.append(("detail", .string(detail)))
        fields.append(("timestamp", .double(timestamp)))
        return .object(JSONObject(fields))
    }
}
