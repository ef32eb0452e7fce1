import JSON

// The IDL's types that more than one program reads or writes, each with its one decoding and encoding. Enumerations
// are their wire strings (the IDL's spelling): each program maps them to its own enums. Fields are written in the
// order locd has always written them, which the golden files of LocationProtocolTests hold.

/// `Authorization` of io.locd.App and io.locd.Admin.
package struct WireAuthorization: Hashable, Sendable {
    /// `notDetermined`, `restricted`, `denied`, `authorizedAlways` or `authorizedWhenInUse`.
    package var status: String
    /// `fullAccuracy` or `reducedAccuracy`.
    package var accuracy: String
    package var provisional: Bool
    package var oneTime: Bool
    package var temporaryFullAccuracy: Bool
    /// `restricted`, `never`, `askNextTime`, `whileUsing` or `always`.
    package var settingsLabel: String

    package init(
        status: String,
        accuracy: String,
        provisional: Bool = false,
        oneTime: Bool = false,
        temporaryFullAccuracy: Bool = false,
        settingsLabel: String
    ) {
        self.status = status
        self.accuracy = accuracy
        self.provisional = provisional
        self.oneTime = oneTime
        self.temporaryFullAccuracy = temporaryFullAccuracy
        self.settingsLabel = settingsLabel
    }

    /// Reads one; nil without its status, accuracy or label. A missing Bool is false.
    package init?(json value: JSONValue?) {
        guard let value, let status = value["status"]?.stringValue, let accuracy = value["accuracy"]?.stringValue,
            let settingsLabel = value["settingsLabel"]?.stringValue
        else { return nil }
        self.init(
            status: status,
            accuracy: accuracy,
            provisional: value["provisional"]?.boolValue ?? false,
            oneTime: value["oneTime"]?.boolValue ?? false,
            temporaryFullAccuracy: value["temporaryFullAccuracy"]?.boolValue ?? false,
            settingsLabel: settingsLabel
        )
    }

    package var json: JSONValue {
        .object([
            "status": .string(status),
            "accuracy": .string(accuracy),
            "provisional": .bool(provisional),
            "oneTime": .bool(oneTime),
            "temporaryFullAccuracy": .bool(temporaryFullAccuracy),
            "settingsLabel": .string(settingsLabel),
        ])
    }
}

/// `Diagnostic`: the flags that are set, by name in bit order, and the same as a mask.
package struct WireDiagnostic: Hashable, Sendable {
    /// The name of each bit, in bit order (PROTOCOL.md: bit 0 authorizationDenied … bit 13
    /// authorizationRequestInProgress).
    package static let flagNames = [
        "authorizationDenied", "authorizationDeniedGlobally", "authorizationRestricted", "stationary",
        "insufficientlyInUse", "locationUnavailable", "accuracyLimited", "conditionUnsupported",
        "conditionLimitExceeded", "persistenceUnavailable", "alwaysAuthorizationDenied", "fullAccuracyDenied",
        "serviceSessionRequired", "authorizationRequestInProgress",
    ]

    package var mask: Int

    package init(mask: Int) { self.mask = mask }

    /// The mask of the flags named; names this version does not know are left out.
    package init(flags: some Sequence<String>) {
        mask = flags.reduce(0) { mask, name in Self.flagNames.firstIndex(of: name).map { mask | 1 << $0 } ?? mask }
    }

    /// Reads one: its `mask`, or its `flags` if a sender left the mask out; nil with neither.
    package init?(json value: JSONValue?) {
        if let mask = value?["mask"]?.intValue {
            self.init(mask: Int(truncatingIfNeeded: mask))
        } else if let names = value?["flags"]?.arrayValue {
            self.init(flags: names.compactMap(\.stringValue))
        } else {
            return nil
        }
    }

    /// The names of the flags that are set, in bit order.
    package var flags: [String] {
        Self.flagNames.indices.compactMap { mask & (1 << $0) != 0 ? Self.flagNames[$0] : nil }
    }

    package var json: JSONValue { .object(["flags": .array(flags.map { .string($0) }), "mask": .int(Int64(mask))]) }
}

/// `Session`.
package struct WireSession: Hashable, Sendable {
    package var id: String
    package var appId: String
    /// The uid whose app it is (SEMANTICS H1).
    package var user: UInt32?
    /// `explicit`, `implicit` or `backgroundActivity`.
    package var kind: String
    /// `none`, `whenInUse` or `always`.
    package var authorization: String
    package var fullAccuracyPurposeKey: String?
    /// `active`, `limited`, `lingering` or `invalidated`.
    package var state: String
    package var diagnostic: WireDiagnostic
    /// While lingering: CLOCK_BOOTTIME nanoseconds.
    package var deadline: Int64?
    package var remainingSeconds: Double?

    package init(
        id: String,
        appId: String,
        user: UInt32? = nil,
        kind: String,
        authorization: String,
        fullAccuracyPurposeKey: String? = nil,
        state: String,
        diagnostic: WireDiagnostic,
        deadline: Int64? = nil,
        remainingSeconds: Double? = nil
    ) {
        self.id = id
        self.appId = appId
        self.user = user
        self.kind = kind
        self.authorization = authorization
        self.fullAccuracyPurposeKey = fullAccuracyPurposeKey
        self.state = state
        self.diagnostic = diagnostic
        self.deadline = deadline
        self.remainingSeconds = remainingSeconds
    }

    /// Reads one; nil without a field the IDL requires (id, appId, kind, authorization, state, diagnostic).
    package init?(json value: JSONValue?) {
        guard let value, let id = value["id"]?.stringValue, let appId = value["appId"]?.stringValue,
            let kind = value["kind"]?.stringValue, let authorization = value["authorization"]?.stringValue,
            let state = value["state"]?.stringValue, let diagnostic = WireDiagnostic(json: value["diagnostic"])
        else { return nil }
        self.init(
            id: id,
            appId: appId,
            user: value["user"]?.intValue.flatMap(UInt32.init(exactly:)),
            kind: kind,
            authorization: authorization,
            fullAccuracyPurposeKey: value["fullAccuracyPurposeKey"]?.stringValue,
            state: state,
            diagnostic: diagnostic,
            deadline: value["deadline"]?.intValue,
            remainingSeconds: value["remainingSeconds"]?.doubleValue
        )
    }

    /// Fields appended in order to one array sized up front: every `CreateSession` reply that is not pre-encoded is
    /// one of these.
    package var json: JSONValue {
        var fields: [(String, JSONValue)] = []
        fields.reserveCapacity(10)
        fields.append(("id", .string(id)))
        fields.append(("appId", .string(appId)))
        if let user { fields.append(("user", .int(Int64(user)))) }
        fields.append(("kind", .string(kind)))
        fields.append(("authorization", .string(authorization)))
        if let fullAccuracyPurposeKey { fields.append(("fullAccuracyPurposeKey", .string(fullAccuracyPurposeKey))) }
        fields.append(("state", .string(state)))
        fields.append(("diagnostic", diagnostic.json))
        if let deadline { fields.append(("deadline", .int(deadline))) }
        if let remainingSeconds { fields.append(("remainingSeconds", .double(remainingSeconds))) }
        return .object(JSONObject(fields))
    }
}
