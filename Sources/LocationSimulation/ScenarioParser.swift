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
        let agent = try document.bool(["agent"]) ?? true
        let manifests = try readManifests(document, directory: directory, scenario: name)
        let known = Set(manifests.map(\.appID))
        let events = try readEvents(document, apps: known, allowUnknown: configuration.allowUnknownApps, agent: agent)
        let until = try document.value(["until"], expected: "a number of seconds >= 0", seconds)
        if let until, let last = events.last, until < last.at {
            throw document.issue(["until"], "must not come before the last event (at = \(last.at))")
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
        guard try document.table(["apps"], expected: "a table of app id = manifest") != nil else { return [] }
        var manifests: [Manifest] = []
        for appID in document.keys(["apps"]) {
            let path = ["apps", appID]
            // `keys` names only the keys the table holds.
            guard let value = document.value(path) else { continue }
            let outcome: ManifestParser.Outcome
            var source: String
            if let file = value.string {
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
                throw document.issue(
                    path,
                    "expected a table of manifest keys or a manifest file's path, found \(TOMLDocument.noun(value.type))"
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
        guard let tables = try document.tables(["events"]) else {
            throw document.issue(
                [],
                "no [[events]]: add at least one, e.g. [[events]] at = 0.0, app = \"…\", event = \"launch\""
            )
        }
        var events: [ScenarioEvent] = []
        for (offset, table) in tables.enumerated() {
            let reader = ScenarioEventReader(event: table, index: offset + 1)
            events.append(try reader.read(apps: apps, allowUnknown: allowUnknown, agent: agent))
        }
        // Events run in time order; those at the same moment in the order the file writes them.
        return events.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    // MARK: Values

    /// An integer or a finite float.
    static func number(_ value: TOMLValueConvertible) -> Double? {
        if let int = value.int { return Double(int) }
        if let double = value.double, double.isFinite { return double }
        return nil
    }

    /// A number of seconds from the start, within ``maximumSeconds``.
    static func seconds(_ value: TOMLValueConvertible) -> Double? {
        guard let seconds = number(value), seconds >= 0, seconds <= maximumSeconds else { return nil }
        return seconds
    }

    private static func baseName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
