import Foundation
import LocationConfiguration
import LocationCore
import TOMLKit

/// Reads a scenario file (`locctl simulate SCENARIO.toml`) into a ``Scenario``.
///
/// The file holds, at the top level:
/// - `agent` (default `true`): whether a prompt agent is connected; `until`: when virtual time stops (default:
///   when no deadline is left);
/// - the daemon configuration's rule keys with `locd.toml`'s names, defaults and checks: `allow-unknown-apps`,
///   `restricted-apps`, `[lifecycle]` and `[limits]`;
/// - `[apps."ID"]`: a manifest written inline with Apple's keys (§2; `id` may be left out), or
///   `apps."ID" = "path.toml"`: a manifest file, relative to the scenario;
/// - `[[events]]`: `at` (seconds from the start; events at the same moment run in the file's order), `event` (see ``eventKinds``), `app` for the events
///   that concern an app, and the event's own parameters.
///
/// Every problem is one ``ConfigurationIssue`` naming the file, line, key (`events[3].answer`) and what is allowed.
package enum ScenarioParser {
    /// Each event's name, whether it concerns an app, and the parameters it takes besides `at`, `event`, `app`.
    package static let eventKinds: [(name: String, needsApp: Bool, parameters: [String])] = [
        ("launch", true, ["state"]),
        ("create-session", true, ["authorization", "purpose-key", "name"]),
        ("invalidate-session", true, ["name"]),
        ("answer", true, ["answer", "accuracy"]),
        ("background", true, []),
        ("foreground", true, []),
        ("terminate", true, []),
        ("relaunch", true, ["state", "resume"]),
        ("goodbye", true, []),
        ("request-authorization", true, ["authorization"]),
        ("request-temporary-full-accuracy", true, ["purpose-key"]),
        ("begin-background-activity", true, ["name"]),
        ("live-updates", true, ["name"]),
        ("set-authorization", true, ["setting", "precise"]),
        ("location-button", true, []),
        ("services-off", false, []),
        ("services-on", false, []),
        ("fix", false, ["latitude", "longitude", "accuracy"]),
        ("fix-lost", false, []),
    ]

    /// The scenario's own top-level keys; the configuration's are read by ``DaemonConfiguration``.
    private static let ownKeys = ["agent", "until", "apps", "events"]
    /// The configuration keys that mean something without a daemon.
    private static let configurationKeys = ["allow-unknown-apps", "restricted-apps", "lifecycle", "limits"]
    /// The most a scenario file may hold, as for manifests: it is read whole.
    private static let maximumFileBytes = 1 << 20
    /// Far enough for any flow, near enough that instants stay far from the end of `Int64` nanoseconds.
    private static let maximumSeconds = 1_000_000_000.0

    /// Reads and parses the scenario at `path`; manifest paths in it are relative to its directory.
    package static func parse(file path: String) throws(ConfigurationIssue) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationIssue(file: path, line: nil, key: nil, message: "cannot read this file")
        }
        guard data.count <= maximumFileBytes else {
            let message = "larger than \(maximumFileBytes) bytes; a scenario is a few hundred lines of TOML"
            throw ConfigurationIssue(file: path, line: nil, key: nil, message: message)
        }
        let document = try TOMLDocument(file: path, bytes: [UInt8](data))
        return try parse(document, directory: directory(of: path))
    }

    /// Parses scenario text; `directory` is where manifest paths are taken from.
    package static func parse(
        text: String,
        file: String,
        directory: String = "."
    ) throws(ConfigurationIssue)
        -> Scenario
    {
        try parse(TOMLDocument(file: file, text: text), directory: directory)
    }

    private static func parse(_ document: TOMLDocument, directory: String) throws(ConfigurationIssue) -> Scenario {
        let allowed = ownKeys + configurationKeys
        for key in document.keys([]) where !allowed.contains(key) {
            throw document.issue(
                [key],
                "not used by a simulation; allowed at the top level: \(allowed.joined(separator: ", "))"
            )
        }
        let configuration = try DaemonConfiguration.parse(document: document, otherKeys: ownKeys).core
        let name = baseName(document.file)
        let agent = try bool(document, ["agent"]) ?? true
        let manifests = try readManifests(document, directory: directory, scenario: name)
        let known = Set(manifests.map(\.appID))
        let events = try readEvents(document, apps: known, allowUnknown: configuration.allowUnknownApps, agent: agent)
        var until: Double?
        if let value = document.value(["until"]) {
            guard let seconds = number(value), seconds >= 0, seconds <= maximumSeconds else {
                throw document.issue(
                    ["until"],
                    "expected a number of seconds >= 0, found \(TOMLDocument.literal(value))"
                )
            }
            if let last = events.last, seconds < last.at {
                throw document.issue(["until"], "must not come before the last event (at = \(last.at))")
            }
            until = seconds
        }
        return Scenario(
            name: name,
            file: document.file,
            manifests: manifests,
            configuration: configuration,
            agent: agent,
            until: until,
            events: events
        )
    }

    // MARK: Manifests

    private static func readManifests(
        _ document: TOMLDocument,
        directory: String,
        scenario: String
    ) throws(ConfigurationIssue) -> [Manifest] {
        guard let apps = document.value(["apps"]) else { return [] }
        guard apps.table != nil else {
            throw document.issue(
                ["apps"],
                "expected a table of app id = manifest, found \(TOMLDocument.noun(apps.type))"
            )
        }
        var manifests: [Manifest] = []
        for appID in document.keys(["apps"]) {
            let path = ["apps", appID]
            let outcome: ManifestParser.Outcome
            var source: String
            if let file = document.value(path)?.string {
                let resolved = file.hasPrefix("/") ? file : directory + "/" + file
                guard let data = FileManager.default.contents(atPath: resolved) else {
                    throw document.issue(path, "cannot read the manifest \(TOMLDocument.quoted(resolved))")
                }
                outcome = ManifestParser.parse(bytes: [UInt8](data), file: resolved)
                source = file
                if let manifest = outcome.manifest, manifest.appID != appID {
                    throw document.issue(path, "the manifest is for \(manifest.appID), not \(appID)")
                }
            } else if let inline = document.scoped(to: path) {
                outcome = ManifestParser.parse(inline: inline, appID: appID)
                source = "\(scenario) [\(TOMLDocument.display(path))]"
            } else {
                let found = TOMLDocument.noun(document.value(path)!.type)
                throw document.issue(
                    path,
                    "expected a table of manifest keys or a manifest file's path, found \(found)"
                )
            }
            if let error = outcome.errors.first { throw error }
            guard var manifest = outcome.manifest else { continue }
            manifest.source = source
            manifests.append(manifest)
        }
        return manifests
    }

    // MARK: Events

    private static func readEvents(
        _ document: TOMLDocument,
        apps: Set<String>,
        allowUnknown: Bool,
        agent: Bool
    ) throws(ConfigurationIssue) -> [ScenarioEvent] {
        guard let value = document.value(["events"]) else {
            throw document.issue(
                [],
                "no [[events]]: add at least one, e.g. [[events]] at = 0.0, app = \"…\", event = \"launch\""
            )
        }
        guard let array = value.array else {
            throw document.issue(
                ["events"],
                "expected an array of tables ([[events]]), found \(TOMLDocument.noun(value.type))"
            )
        }
        let headers = document.lines(of: ["events"])
        var events: [ScenarioEvent] = []
        for (offset, item) in array.enumerated() {
            let reader = EventReader(
                document: document,
                index: offset + 1,
                header: offset < headers.count ? headers[offset] : nil,
                nextHeader: offset + 1 < headers.count ? headers[offset + 1] : nil
            )
            guard let table = item.table else {
                throw reader.issue(nil, "expected a table ([[events]]), found \(TOMLDocument.noun(item.type))")
            }
            events.append(try reader.read(table, apps: apps, allowUnknown: allowUnknown, agent: agent))
        }
        // Events run in time order; those at the same moment in the order the file writes them.
        return events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// Reads one `[[events]]` table, naming it `events[N]` and its line in every message.
    private struct EventReader {
        var document: TOMLDocument
        var index: Int
        var header: Int?
        var nextHeader: Int?

        func issue(_ key: String?, _ message: String) -> ConfigurationIssue {
            var line = header
            if let key, let header {
                // The key's own line: the first one written under this event's header.
                let written = document.lines(of: ["events", key])
                line = written.first { line in line > header && (nextHeader.map { line < $0 } ?? true) } ?? header
            }
            return ConfigurationIssue(
                file: document.file,
                line: line,
                key: "events[\(index)]" + (key.map { ".\($0)" } ?? ""),
                message: message
            )
        }

        func read(
            _ table: TOMLTable,
            apps: Set<String>,
            allowUnknown: Bool,
            agent: Bool
        ) throws(ConfigurationIssue) -> ScenarioEvent {
            let kinds = ScenarioParser.eventKinds.map(\.name).joined(separator: ", ")
            guard let nameValue = table["event"] else { throw issue(nil, "missing key event: one of \(kinds)") }
            guard let name = nameValue.string, let kind = ScenarioParser.eventKinds.first(where: { $0.name == name })
            else {
                throw issue("event", "unknown event \(TOMLDocument.literal(nameValue)); allowed: \(kinds)")
            }
            let allowed = ["at", "event"] + (kind.needsApp ? ["app"] : []) + kind.parameters
            for key in table.keys where !allowed.contains(key) {
                throw issue(key, "unknown key for \(name); allowed: \(allowed.joined(separator: ", "))")
            }
            guard let atValue = table["at"] else {
                throw issue(nil, "missing key at: the moment, in seconds from the start")
            }
            guard let at = ScenarioParser.number(atValue), at >= 0, at <= ScenarioParser.maximumSeconds else {
                throw issue("at", "expected a number of seconds >= 0, found \(TOMLDocument.literal(atValue))")
            }
            var app: String?
            if kind.needsApp {
                guard let appValue = table["app"] else {
                    throw issue(nil, "missing key app: the app id \(name) concerns")
                }
                guard let appID = appValue.string, !appID.isEmpty else {
                    throw issue("app", "expected an app id, found \(TOMLDocument.literal(appValue))")
                }
                guard apps.contains(appID) || allowUnknown else {
                    let list = apps.sorted().joined(separator: ", ")
                    throw issue(
                        "app",
                        "no manifest for \(appID): add [apps.\"\(appID)\"]; the scenario's apps: \(list)"
                    )
                }
                app = appID
            }
            let action = try self.action(name, table, agent: agent)
            return ScenarioEvent(at: at, app: app, action: action, index: index, line: header)
        }

        private func action(
            _ name: String,
            _ table: TOMLTable,
            agent: Bool
        ) throws(ConfigurationIssue) -> ScenarioAction {
            switch name {
            case "launch": return .launch(state: try choice(table, "state", RunningState.self))
            case "create-session":
                guard let requirement = try choice(table, "authorization", Requirement.self) else {
                    throw issue(nil, "missing key authorization: one of \(names(Requirement.self))")
                }
                return .createSession(
                    requirement,
                    purposeKey: try text(table, "purpose-key"),
                    name: try text(table, "name")
                )
            case "invalidate-session":
                guard let session = try text(table, "name") else {
                    throw issue(nil, "missing key name: the name a create-session gave the session")
                }
                return .invalidateSession(name: session)
            case "answer":
                guard agent else {
                    throw issue(nil, "answer needs a prompt agent: remove agent = false, or let the prompt time out")
                }
                guard let answer = try choice(table, "answer", PromptAnswer.self) else {
                    throw issue(nil, "missing key answer: one of \(names(PromptAnswer.self))")
                }
                return .answer(answer, accuracy: try choice(table, "accuracy", PromptAccuracy.self))
            case "background": return .background
            case "foreground": return .foreground
            case "terminate": return .terminate
            case "relaunch":
                return .relaunch(
                    state: try choice(table, "state", RunningState.self),
                    resume: try flag(table, "resume") ?? true
                )
            case "goodbye": return .goodbye
            case "request-authorization":
                guard let level = try choice(table, "authorization", RequestLevel.self) else {
                    throw issue(nil, "missing key authorization: one of \(names(RequestLevel.self))")
                }
                return .requestAuthorization(level)
            case "request-temporary-full-accuracy":
                guard let key = try text(table, "purpose-key") else {
                    throw issue(nil, "missing key purpose-key: a key of NSLocationTemporaryUsageDescriptionDictionary")
                }
                return .requestTemporaryFullAccuracy(purposeKey: key)
            case "begin-background-activity": return .beginBackgroundActivity(name: try text(table, "name"))
            case "live-updates": return .liveUpdates(name: try text(table, "name"))
            case "set-authorization":
                let setting = try self.setting(table)
                let precise = try flag(table, "precise")
                guard setting != nil || precise != nil else {
                    throw issue(nil, "set-authorization needs setting, precise or both")
                }
                return .setAuthorization(setting, precise: precise)
            case "location-button": return .locationButton
            case "services-off": return .servicesOff
            case "services-on": return .servicesOn
            case "fix":
                guard let latitude = try degrees(table, "latitude", limit: 90),
                    let longitude = try degrees(table, "longitude", limit: 180)
                else { throw issue(nil, "fix needs latitude and longitude, in degrees") }
                var accuracy = 10.0
                if let value = table["accuracy"] {
                    guard let metres = ScenarioParser.number(value), metres >= 0, metres.isFinite else {
                        throw issue(
                            "accuracy",
                            "expected a number of metres >= 0, found \(TOMLDocument.literal(value))"
                        )
                    }
                    accuracy = metres
                }
                return .fix(latitude: latitude, longitude: longitude, accuracy: accuracy)
            default: return .fixLost
            }
        }

        private func names<Choice: RawRepresentable & CaseIterable>(_: Choice.Type) -> String
        where Choice.RawValue == String {
            Choice.allCases.map { TOMLDocument.quoted($0.rawValue) }.joined(separator: ", ")
        }

        private func choice<Choice: RawRepresentable & CaseIterable>(
            _ table: TOMLTable,
            _ key: String,
            _ type: Choice.Type
        ) throws(ConfigurationIssue) -> Choice? where Choice.RawValue == String {
            guard let value = table[key] else { return nil }
            guard let raw = value.string, let choice = Choice(rawValue: raw) else {
                throw issue(key, "expected one of \(names(type)), found \(TOMLDocument.literal(value))")
            }
            return choice
        }

        /// `setting`, spelled as `locctl auth` spells it.
        private func setting(_ table: TOMLTable) throws(ConfigurationIssue) -> AuthorizationSetting? {
            let spellings: [(String, AuthorizationSetting)] = [
                ("never", .never), ("ask-next-time", .askNextTime), ("while-using", .whileUsing), ("always", .always),
            ]
            guard let value = table["setting"] else { return nil }
            guard let raw = value.string, let setting = spellings.first(where: { $0.0 == raw })?.1 else {
                let allowed = spellings.map { TOMLDocument.quoted($0.0) }.joined(separator: ", ")
                throw issue("setting", "expected one of \(allowed), found \(TOMLDocument.literal(value))")
            }
            return setting
        }

        private func text(_ table: TOMLTable, _ key: String) throws(ConfigurationIssue) -> String? {
            guard let value = table[key] else { return nil }
            guard let text = value.string, !text.isEmpty else {
                throw issue(key, "expected a non-empty string, found \(TOMLDocument.literal(value))")
            }
            return text
        }

        private func flag(_ table: TOMLTable, _ key: String) throws(ConfigurationIssue) -> Bool? {
            guard let value = table[key] else { return nil }
            guard let flag = value.bool else {
                throw issue(key, "expected true or false, found \(TOMLDocument.literal(value))")
            }
            return flag
        }

        private func degrees(_ table: TOMLTable, _ key: String, limit: Double) throws(ConfigurationIssue) -> Double? {
            guard let value = table[key] else { return nil }
            guard let degrees = ScenarioParser.number(value), abs(degrees) <= limit else {
                throw issue(
                    key,
                    "expected degrees in [-\(Int(limit)), \(Int(limit))], found \(TOMLDocument.literal(value))"
                )
            }
            return degrees
        }
    }

    // MARK: Values

    /// An integer or a finite float.
    private static func number(_ value: TOMLValueConvertible) -> Double? {
        if let int = value.int { return Double(int) }
        if let double = value.double, double.isFinite { return double }
        return nil
    }

    private static func bool(_ document: TOMLDocument, _ path: [String]) throws(ConfigurationIssue) -> Bool? {
        guard let value = document.value(path) else { return nil }
        guard let bool = value.bool else {
            throw document.issue(path, "expected true or false, found \(TOMLDocument.noun(value.type))")
        }
        return bool
    }

    private static func baseName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
