import LocationConfiguration
import LocationCore
import TOMLKit

/// Reads one `[[events]]` table of a scenario into a ``ScenarioEvent``; every message names the event
/// (`events[3].answer`) and the line under its header where the key is written.
struct ScenarioEventReader {
    /// The event's table, as a document of its own (``TOMLDocument/tables(_:)``).
    var event: TOMLDocument
    /// The event's place in the file, from 1.
    var index: Int

    func issue(_ key: String?, _ message: String) -> ConfigurationIssue {
        event.issue(key.map { [$0] } ?? [], message)
    }

    func read(apps: Set<String>, allowUnknown: Bool, agent: Bool) throws(ConfigurationIssue) -> ScenarioEvent {
        let kinds = ScenarioParser.eventKinds.map(\.name).joined(separator: ", ")
        guard let nameValue = event.value(["event"]) else { throw issue(nil, "missing key event: one of \(kinds)") }
        guard let name = nameValue.string, let kind = ScenarioParser.eventKinds.first(where: { $0.name == name })
        else {
            throw issue("event", "unknown event \(TOMLDocument.literal(nameValue)); allowed: \(kinds)")
        }
        // `user`: whose app an app's event concerns, or whose own switch services-off and -on turn (H1, H6).
        let takesUser = kind.needsApp || name == "services-off" || name == "services-on"
        let allowed = ["at", "event"] + (kind.needsApp ? ["app"] : []) + (takesUser ? ["user"] : []) + kind.parameters
        for key in event.keys([]) where !allowed.contains(key) {
            throw issue(key, "unknown key for \(name); allowed: \(allowed.joined(separator: ", "))")
        }
        guard let at = try event.value(["at"], expected: "a number of seconds >= 0", ScenarioParser.seconds) else {
            throw issue(nil, "missing key at: the moment, in seconds from the start")
        }
        var app: String?
        if kind.needsApp {
            guard let appID = try event.value(["app"], expected: "an app id", Self.nonEmptyString) else {
                throw issue(nil, "missing key app: the app id \(name) concerns")
            }
            guard apps.contains(appID) || allowUnknown else {
                let list = apps.sorted().joined(separator: ", ")
                throw issue("app", "no manifest for \(appID): add [apps.\"\(appID)\"]; the scenario's apps: \(list)")
            }
            app = appID
        }
        let user = takesUser ? try event.value(["user"], expected: "a user's name", Self.nonEmptyString) : nil
        let action = try self.action(name, agent: agent)
        return ScenarioEvent(at: at, app: app, user: user, action: action, index: index, line: event.line(of: []))
    }

    private func action(_ name: String, agent: Bool) throws(ConfigurationIssue) -> ScenarioAction {
        switch name {
        case "launch": return .launch(state: try choice("state", RunningState.self))
        case "create-session":
            guard let requirement = try choice("authorization", Requirement.self) else {
                throw issue(nil, "missing key authorization: one of \(names(Requirement.self))")
            }
            return .createSession(requirement, purposeKey: try text("purpose-key"), name: try text("name"))
        case "invalidate-session":
            guard let session = try text("name") else {
                throw issue(nil, "missing key name: the name a create-session gave the session")
            }
            return .invalidateSession(name: session)
        case "answer":
            guard agent else {
                throw issue(nil, "answer needs a prompt agent: remove agent = false, or let the prompt time out")
            }
            guard let answer = try choice("answer", PromptAnswer.self) else {
                throw issue(nil, "missing key answer: one of \(names(PromptAnswer.self))")
            }
            return .answer(answer, accuracy: try choice("accuracy", PromptAccuracy.self))
        case "background": return .background
        case "foreground": return .foreground
        case "terminate": return .terminate
        case "relaunch":
            return .relaunch(state: try choice("state", RunningState.self), resume: try flag("resume") ?? true)
        case "goodbye": return .goodbye
        case "request-authorization":
            guard let level = try choice("authorization", RequestLevel.self) else {
                throw issue(nil, "missing key authorization: one of \(names(RequestLevel.self))")
            }
            return .requestAuthorization(level)
        case "request-temporary-full-accuracy":
            guard let key = try text("purpose-key") else {
                throw issue(nil, "missing key purpose-key: a key of NSLocationTemporaryUsageDescriptionDictionary")
            }
            return .requestTemporaryFullAccuracy(purposeKey: key)
        case "begin-background-activity": return .beginBackgroundActivity(name: try text("name"))
        case "live-updates": return .liveUpdates(name: try text("name"))
        case "set-authorization":
            let setting = try self.setting()
            let precise = try flag("precise")
            guard setting != nil || precise != nil else {
                throw issue(nil, "set-authorization needs setting, precise or both")
            }
            return .setAuthorization(setting, precise: precise)
        case "location-button": return .locationButton
        case "services-off": return .servicesOff
        case "services-on": return .servicesOn
        case "fix": return try fix()
        default: return .fixLost
        }
    }

    private func fix() throws(ConfigurationIssue) -> ScenarioAction {
        guard let latitude = try degrees("latitude", limit: 90), let longitude = try degrees("longitude", limit: 180)
        else { throw issue(nil, "fix needs latitude and longitude, in degrees") }
        let accuracy = try event.value(["accuracy"], expected: "a number of metres >= 0") { value in
            ScenarioParser.number(value).flatMap { $0 >= 0 ? $0 : nil }
        }
        return .fix(latitude: latitude, longitude: longitude, accuracy: accuracy ?? 10.0)
    }

    // MARK: Values

    private func names<Choice: RawRepresentable & CaseIterable>(_: Choice.Type) -> String
    where Choice.RawValue == String {
        Choice.allCases.map { TOMLDocument.quoted($0.rawValue) }.joined(separator: ", ")
    }

    private func choice<Choice: RawRepresentable & CaseIterable>(
        _ key: String,
        _ type: Choice.Type
    ) throws(ConfigurationIssue) -> Choice? where Choice.RawValue == String {
        try event.value([key], expected: "one of \(names(type))") { $0.string.flatMap(Choice.init(rawValue:)) }
    }

    /// `setting`, spelled as `locctl auth` spells it.
    private func setting() throws(ConfigurationIssue) -> AuthorizationSetting? {
        let spellings: [(String, AuthorizationSetting)] = [
            ("never", .never), ("ask-next-time", .askNextTime), ("while-using", .whileUsing), ("always", .always),
        ]
        let allowed = spellings.map { TOMLDocument.quoted($0.0) }.joined(separator: ", ")
        return try event.value(["setting"], expected: "one of \(allowed)") { value in
            value.string.flatMap { raw in spellings.first { $0.0 == raw }?.1 }
        }
    }

    private func text(_ key: String) throws(ConfigurationIssue) -> String? {
        try event.value([key], expected: "a non-empty string", Self.nonEmptyString)
    }

    private func flag(_ key: String) throws(ConfigurationIssue) -> Bool? {
        try event.value([key], expected: "true or false") { $0.bool }
    }

    private func degrees(_ key: String, limit: Double) throws(ConfigurationIssue) -> Double? {
        try event.value([key], expected: "degrees in [-\(Int(limit)), \(Int(limit))]") { value in
            ScenarioParser.number(value).flatMap { abs($0) <= limit ? $0 : nil }
        }
    }

    private static func nonEmptyString(_ value: TOMLValueConvertible) -> String? {
        value.string.flatMap { $0.isEmpty ? nil : $0 }
    }
}
