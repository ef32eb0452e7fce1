import Foundation
import JSON
import LocationProtocol
import LocationTestSupport
import LocationWireErrors
import Testing

@testable import LocationCore

/// Every enum that crosses the wire spells its cases exactly as PROTOCOL.md's IDL does, in the IDL's
/// order, and survives a JSON round trip (STYLE habit 3: one string on the wire, in the store and in
/// `locctl`). Every ``LocationError`` maps to its Varlink error name and says what to do.
@Suite("Wire names")
struct WireNameTests {
    // MARK: Enums

    @Test("PROTOCOL: AuthorizationStatus spells Authorization.status, with Apple's raw values 0–4")
    func authorizationStatus() throws {
        try expectWireNames(
            AuthorizationStatus.self,
            ["notDetermined", "restricted", "denied", "authorizedAlways", "authorizedWhenInUse"]
        )
        // Seed 001's CLAuthorizationStatus table.
        #expect(AuthorizationStatus.allCases.map(\.code) == [0, 1, 2, 3, 4])
    }

    @Test("PROTOCOL: AccuracyAuthorization spells Authorization.accuracy")
    func accuracyAuthorization() throws {
        try expectWireNames(AccuracyAuthorization.self, ["fullAccuracy", "reducedAccuracy"])
    }

    @Test("A2: SettingsLabel spells Authorization.settingsLabel")
    func settingsLabel() throws {
        try expectWireNames(SettingsLabel.self, ["restricted", "never", "askNextTime", "whileUsing", "always"])
    }

    @Test("A3: AuthorizationSetting spells Admin.SetAuthorization's setting")
    func authorizationSetting() throws {
        try expectWireNames(AuthorizationSetting.self, ["never", "askNextTime", "whileUsing", "always"])
    }

    @Test("PROTOCOL: AlwaysDecision spells the stored alwaysDecision of SEMANTICS §3")
    func alwaysDecision() throws {
        try expectWireNames(AlwaysDecision.self, ["undecided", "granted", "declined"])
    }

    @Test("PROTOCOL: Requirement spells Session.authorization; .noAuthorization is the wire's \"none\"")
    func requirement() throws {
        try expectWireNames(Requirement.self, ["none", "whenInUse", "always"])
        #expect(Requirement.noAuthorization.rawValue == "none")
        #expect(Requirement.noAuthorization < .whenInUse && Requirement.whenInUse < .always)
    }

    @Test("PROTOCOL: SessionKind spells Session.kind")
    func sessionKind() throws {
        try expectWireNames(SessionKind.self, ["explicit", "implicit", "backgroundActivity"])
    }

    @Test("PROTOCOL: SessionState spells Session.state")
    func sessionState() throws {
        try expectWireNames(SessionState.self, ["active", "limited", "lingering", "invalidated"])
    }

    @Test("PROTOCOL: AppState spells AppEntry.state")
    func appState() throws {
        try expectWireNames(AppState.self, ["notRunning", "foreground", "background", "terminated"])
    }

    @Test("PROTOCOL: RunningState spells the state of Hello and SetAppState")
    func runningState() throws {
        try expectWireNames(RunningState.self, ["foreground", "background"])
    }

    @Test("PROTOCOL: RequestLevel spells RequestAuthorization's level")
    func requestLevel() throws {
        try expectWireNames(RequestLevel.self, ["whenInUse", "always"])
    }

    @Test("PROTOCOL: LiveConfiguration spells LiveUpdates' configuration; .standard is the wire's \"default\"")
    func liveConfiguration() throws {
        try expectWireNames(
            LiveConfiguration.self,
            ["default", "automotiveNavigation", "otherNavigation", "fitness", "airborne"]
        )
        #expect(LiveConfiguration.standard.rawValue == "default")
    }

    @Test("PROTOCOL: PromptKind spells Prompt.kind")
    func promptKind() throws {
        try expectWireNames(
            PromptKind.self,
            ["authorization", "alwaysUpgrade", "temporaryFullAccuracy", "alwaysReconfirm"]
        )
    }

    @Test("PROTOCOL: PromptAnswer spells Prompt.options and AnswerPrompt's answer")
    func promptAnswer() throws {
        try expectWireNames(
            PromptAnswer.self,
            [
                "allowWhileUsing", "allowOnce", "deny", "keepWhileUsing", "changeToAlways", "allow", "keepAlways",
                "changeToWhileUsing", "allowAlways",
            ]
        )
    }

    @Test("PROTOCOL: PromptAccuracy spells Prompt.defaultAccuracy and AnswerPrompt's accuracy")
    func promptAccuracy() throws {
        try expectWireNames(PromptAccuracy.self, ["full", "reduced"])
    }

    @Test("PROTOCOL: AdminEventKind spells Admin.Event.kind")
    func adminEventKind() throws {
        try expectWireNames(
            AdminEventKind.self,
            [
                "sessionCreated", "sessionChanged", "sessionEnded", "appStateChanged", "authorizationChanged",
                "promptRaised", "promptResolved", "servicesChanged",
            ]
        )
    }

    @Test("PROTOCOL: Manifest.Identity spells the manifest's identity key of SEMANTICS §2")
    func manifestIdentity() throws {
        try expectWireNames(Manifest.Identity.self, ["executable", "uid", "any"])
    }

    // MARK: Diagnostic flags

    /// SEMANTICS §7's table, bit by bit.
    static let diagnosticTable: [(bit: Int, name: String, flag: DiagnosticMask)] = [
        (0, "authorizationDenied", .authorizationDenied),
        (1, "authorizationDeniedGlobally", .authorizationDeniedGlobally),
        (2, "authorizationRestricted", .authorizationRestricted),
        (3, "stationary", .stationary),
        (4, "insufficientlyInUse", .insufficientlyInUse),
        (5, "locationUnavailable", .locationUnavailable),
        (6, "accuracyLimited", .accuracyLimited),
        (7, "conditionUnsupported", .conditionUnsupported),
        (8, "conditionLimitExceeded", .conditionLimitExceeded),
        (9, "persistenceUnavailable", .persistenceUnavailable),
        (10, "alwaysAuthorizationDenied", .alwaysAuthorizationDenied),
        (11, "fullAccuracyDenied", .fullAccuracyDenied),
        (12, "serviceSessionRequired", .serviceSessionRequired),
        (13, "authorizationRequestInProgress", .authorizationRequestInProgress),
    ]

    @Test("PROTOCOL: DiagnosticMask.names lists §7's 14 flags in Apple's bit order, each at its bit")
    func diagnosticNames() {
        #expect(DiagnosticMask.names == Self.diagnosticTable.map(\.name))
        for row in Self.diagnosticTable {
            #expect(row.flag.rawValue == 1 << row.bit, "\(row.name) is bit \(row.bit)")
            #expect(row.flag.flagNames == [row.name])
            #expect(DiagnosticMask(flagNames: [row.name]) == row.flag)
        }
    }

    @Test("PROTOCOL: every 14-bit mask round-trips through Diagnostic.flags; unknown names are refused")
    func diagnosticFlagsRoundTrip() {
        for raw in UInt16(0)..<(1 << 14) {
            let mask = DiagnosticMask(rawValue: raw)
            let names = mask.flagNames
            // Flags are listed in bit order, so the wire list is canonical.
            #expect(names == DiagnosticMask.names.filter { names.contains($0) })
            #expect(DiagnosticMask(flagNames: names) == mask)
        }
        #expect(DiagnosticMask(flagNames: ["authorizationDenied", "AuthorizationDenied"]) == nil)
    }

    // MARK: Ids

    /// Pairs of (epoch, number) at the edges of each digit count, up to the largest of each.
    static let idParts: [(UInt32, UInt64)] = [
        (0, 0), (1, 9), (9, 10), (10, 99), (3, 12), (12_345, 1_000_000), (UInt32.max, 0), (0, UInt64.max),
        (UInt32.max, UInt64.max),
    ]

    @Test("S3: session and prompt ids are spelled s<epoch>-<n> and p<epoch>-<n> and parse back", arguments: idParts)
    func idSpelling(epoch: UInt32, number: UInt64) {
        let session = SessionID(epoch: epoch, number: number)
        #expect(session.description == "s" + String(epoch) + "-" + String(number))
        #expect(SessionID(session.description) == session)
        let prompt = PromptID(epoch: epoch, number: number)
        #expect(prompt.description == "p" + String(epoch) + "-" + String(number))
        #expect(PromptID(prompt.description) == prompt)
    }

    // MARK: Errors

    /// One sample of every ``LocationError`` case, with PROTOCOL.md's name and parameters and what its
    /// message must mention (the values, and the thing to do).
    struct ErrorRow: Sendable, CustomTestStringConvertible {
        var error: LocationError
        var name: String
        var parameters: JSONObject
        var mentions: [String]
        var testDescription: String { name }
    }

    static let errorRows: [ErrorRow] = [
        ErrorRow(
            error: .helloRequired,
            name: "io.locd.App.HelloRequired",
            parameters: [:],
            mentions: ["call io.locd.App.Hello"]
        ),
        ErrorRow(
            error: .appUnknown(appID: "com.ex.ghost"),
            name: "io.locd.App.AppUnknown",
            parameters: ["appId": .string("com.ex.ghost")],
            mentions: ["com.ex.ghost", "install apps.d/com.ex.ghost.toml", "allow-unknown-apps"]
        ),
        ErrorRow(
            error: .noSuchSession(id: "s1-9"),
            name: "io.locd.App.NoSuchSession",
            parameters: ["id": .string("s1-9")],
            mentions: ["s1-9", "use an id"]
        ),
        ErrorRow(
            error: .sessionInvalidated(id: "s1-2"),
            name: "io.locd.App.SessionInvalidated",
            parameters: ["id": .string("s1-2")],
            mentions: ["s1-2", "create a new session"]
        ),
        ErrorRow(
            error: .usageDescriptionMissing(key: Manifest.alwaysKey, manifest: "apps.d/com.ex.maps.toml"),
            name: "io.locd.App.UsageDescriptionMissing",
            parameters: ["key": .string(Manifest.alwaysKey)],
            mentions: ["add NSLocationAlwaysAndWhenInUseUsageDescription to apps.d/com.ex.maps.toml", "reload"]
        ),
        ErrorRow(
            error: .unknownPurposeKey(purposeKey: "Radar", manifest: "apps.d/com.ex.approx.toml"),
            name: "io.locd.App.UnknownPurposeKey",
            parameters: ["purposeKey": .string("Radar")],
            mentions: ["add Radar", "NSLocationTemporaryUsageDescriptionDictionary", "apps.d/com.ex.approx.toml"]
        ),
        ErrorRow(
            error: .limitExceeded(limit: "max-sessions-per-app", maximum: 64),
            name: "io.locd.App.LimitExceeded",
            parameters: ["limit": .string("max-sessions-per-app"), "maximum": .int(64)],
            mentions: ["64", "end some first", "raise max-sessions-per-app"]
        ),
        ErrorRow(
            error: .backgroundActivityUnavailable(reason: "add \"location\" to UIBackgroundModes"),
            name: "io.locd.App.BackgroundActivityUnavailable",
            parameters: ["reason": .string("add \"location\" to UIBackgroundModes")],
            mentions: ["add \"location\" to UIBackgroundModes"]
        ),
        ErrorRow(
            error: .noSuchApp(appID: "com.ex.ghost"),
            name: "io.locd.Admin.NoSuchApp",
            parameters: ["appId": .string("com.ex.ghost")],
            mentions: ["com.ex.ghost", "locctl apps"]
        ),
        ErrorRow(
            error: .noSuchPrompt(id: "p1-4"),
            name: "io.locd.Admin.NoSuchPrompt",
            parameters: ["id": .string("p1-4")],
            mentions: ["p1-4", "answer the prompt"]
        ),
        ErrorRow(
            error: .invalidAnswer(id: "p1-4", answer: "allow"),
            name: "io.locd.Admin.InvalidAnswer",
            parameters: ["id": .string("p1-4"), "answer": .string("allow")],
            mentions: ["p1-4", "allow", "answer with one of the prompt's options"]
        ),
        ErrorRow(
            error: .methodNotFound(method: "io.locd.App.Teleport"),
            name: "org.varlink.service.MethodNotFound",
            parameters: ["method": .string("io.locd.App.Teleport")],
            mentions: ["io.locd.App.Teleport", "GetInterfaceDescription"]
        ),
        ErrorRow(
            error: .interfaceNotFound(interface: "io.locd.Nope"),
            name: "org.varlink.service.InterfaceNotFound",
            parameters: ["interface": .string("io.locd.Nope")],
            mentions: ["io.locd.Nope", "io.locd.App"]
        ),
        ErrorRow(
            error: .invalidParameter(parameter: "appId", reason: "open a new connection for com.ex.run"),
            name: "org.varlink.service.InvalidParameter",
            parameters: ["parameter": .string("appId")],
            mentions: ["appId", "open a new connection for com.ex.run"]
        ),
        ErrorRow(
            error: .expectedMore,
            name: "org.varlink.service.ExpectedMore",
            parameters: [:],
            mentions: ["\"more\": true"]
        ),
        ErrorRow(
            error: .permissionDenied(reason: "join the locd group to use io.locd.Admin"),
            name: "org.varlink.service.PermissionDenied",
            parameters: [:],
            mentions: ["join the locd group"]
        ),
    ]

    @Test("F20: LimitExceeded at max-apps-per-uid says how to forget a user's apps")
    func appLimitMessage() {
        let error = LocationError.limitExceeded(limit: "max-apps-per-uid", maximum: 128)
        #expect(error.wireName == "io.locd.App.LimitExceeded")
        #expect(
            error.wireError.parameters(message: nil) == ["limit": .string("max-apps-per-uid"), "maximum": .int(128)]
        )
        for phrase in ["128", "locctl forget --user", "raise max-apps-per-uid"] {
            #expect(error.message.contains(phrase), "\(error.message) should mention \(phrase)")
        }
    }

    @Test("PROTOCOL: every LocationError has its PROTOCOL.md error name and parameters", arguments: errorRows)
    func errorName(row: ErrorRow) {
        #expect(row.error.wireName == row.name)
        #expect(row.error.wireName == Self.protocolName(of: row.error))
        let parameters = row.error.wireError.parameters(message: nil)
        #expect(Set(parameters.keys).count == parameters.keys.count, "no parameter named twice")
        #expect(parameters == row.parameters)
        // The reply's parameters read back as the same error.
        #expect(WireError(name: row.name, parameters: parameters) == row.error.wireError)
    }

    @Test("PROTOCOL: every LocationError message is non-empty and says what to do", arguments: errorRows)
    func errorMessage(row: ErrorRow) {
        let message = row.error.message
        #expect(!message.trimmingCharacters(in: .whitespaces).isEmpty)
        for phrase in row.mentions {
            #expect(message.contains(phrase), "\(row.name): \"\(message)\" should mention \"\(phrase)\"")
        }
    }

    @Test("PROTOCOL: the error samples cover all 16 error names of PROTOCOL.md")
    func errorCoverage() {
        let names = Set(Self.errorRows.map(\.name))
        #expect(names.count == Self.errorRows.count)
        #expect(
            names == [
                "io.locd.App.HelloRequired", "io.locd.App.AppUnknown", "io.locd.App.NoSuchSession",
                "io.locd.App.SessionInvalidated", "io.locd.App.UsageDescriptionMissing",
                "io.locd.App.UnknownPurposeKey", "io.locd.App.LimitExceeded",
                "io.locd.App.BackgroundActivityUnavailable", "io.locd.Admin.NoSuchApp",
                "io.locd.Admin.NoSuchPrompt", "io.locd.Admin.InvalidAnswer", "org.varlink.service.MethodNotFound",
                "org.varlink.service.InterfaceNotFound", "org.varlink.service.InvalidParameter",
                "org.varlink.service.ExpectedMore", "org.varlink.service.PermissionDenied",
            ]
        )
    }

    /// PROTOCOL.md's name for each case, written out independently; the exhaustive switch makes a new
    /// case fail to compile here until it is given a name (and a row above).
    static func protocolName(of error: LocationError) -> String {
        switch error {
        case .helloRequired: "io.locd.App.HelloRequired"
        case .appUnknown: "io.locd.App.AppUnknown"
        case .noSuchSession: "io.locd.App.NoSuchSession"
        case .sessionInvalidated: "io.locd.App.SessionInvalidated"
        case .usageDescriptionMissing: "io.locd.App.UsageDescriptionMissing"
        case .unknownPurposeKey: "io.locd.App.UnknownPurposeKey"
        case .limitExceeded: "io.locd.App.LimitExceeded"
        case .backgroundActivityUnavailable: "io.locd.App.BackgroundActivityUnavailable"
        case .noSuchApp: "io.locd.Admin.NoSuchApp"
        case .noSuchPrompt: "io.locd.Admin.NoSuchPrompt"
        case .invalidAnswer: "io.locd.Admin.InvalidAnswer"
        case .methodNotFound: "org.varlink.service.MethodNotFound"
        case .interfaceNotFound: "org.varlink.service.InterfaceNotFound"
        case .invalidParameter: "org.varlink.service.InvalidParameter"
        case .expectedMore: "org.varlink.service.ExpectedMore"
        case .permissionDenied: "org.varlink.service.PermissionDenied"
        }
    }
}

/// Checks that an enum's cases are exactly `wire`, in order, and that each name survives `init(rawValue:)`
/// and a JSON encode/decode as that bare string; a near miss (wrong case) is refused.
private func expectWireNames<E>(
    _ type: E.Type,
    _ wire: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) throws where E: CaseIterable & Codable & RawRepresentable & Equatable, E.RawValue == String {
    #expect(E.allCases.map(\.rawValue) == wire, sourceLocation: sourceLocation)
    for value in E.allCases {
        let name = value.rawValue
        #expect(E(rawValue: name) == value, sourceLocation: sourceLocation)
        let json = try JSONEncoder().encode([value])
        #expect(String(decoding: json, as: UTF8.self) == "[\"\(name)\"]", sourceLocation: sourceLocation)
        #expect(try JSONDecoder().decode([E].self, from: json) == [value], sourceLocation: sourceLocation)
        let nearMiss = name.prefix(1).uppercased() + name.dropFirst()
        #expect(E(rawValue: nearMiss) == nil, "\(nearMiss) is not a wire name", sourceLocation: sourceLocation)
    }
}
