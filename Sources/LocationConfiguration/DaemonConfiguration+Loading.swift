import AppIdentifiers
import Foundation
import LocationCore
import SubordinateRanges
import TOMLKit

extension DaemonConfiguration {
    /// Reads the configuration: the main file, then its drop-ins `<file>.d/*.toml` in name order, each file
    /// overriding the keys it sets and no others (SEMANTICS §11).
    ///
    /// - Parameters:
    ///   - path: `--config`; `nil` means `defaultPath`, where a missing file means the built-in defaults.
    ///     A missing file that was named explicitly is an error.
    ///   - defaultPath: ``DaemonConfiguration/defaultPath`` except in tests.
    ///   - accounts: the accounts the system lists, asked only when `subordinate-uids` has ranges (H9);
    ///     `readSubordinateIDs`, the reader of that file. Tests give their own, so as never to read the host's.
    /// The `executable` of each `[[broker]]` in force once every file is read is then resolved with realpath(3)
    /// (I13), which ``parse(text:file:over:)`` does not do.
    /// - Throws: the first problem: a file that cannot be read or parsed, an unknown key, a wrong type or an
    ///   out-of-range value, a broker's executable that resolves nowhere, naming file, line, key and what to do.
    package static func load(
        path: String? = nil,
        defaultPath: String = DaemonConfiguration.defaultPath,
        accounts: () -> [(name: String, uid: UInt32)] = { SystemAccounts.listed() },
        readSubordinateIDs: (String) -> (SubordinateIDs, [String]) = { SubordinateIDs.read(file: $0) }
    ) throws(ConfigurationIssue) -> DaemonConfiguration {
        let main = path ?? defaultPath
        var files: [String] = []
        if FileManager.default.fileExists(atPath: main) {
            files.append(main)
        } else if path != nil {
            throw ConfigurationIssue(file: main, line: nil, key: nil, message: "no such file")
        }
        files += try dropIns(beside: main)

        var configuration = DaemonConfiguration()
        var kindPlaces: [KindPlace?] = [nil]
        var brokerPlaces: [ConfigurationIssue] = []
        var providersWritten = false
        for file in files {
            let document = try TOMLDocument(file: file, bytes: read(file))
            try configuration.apply(document, kindPlaces: &kindPlaces, brokerPlaces: &brokerPlaces)
            if document.value(["provider"]) != nil { providersWritten = true }
        }
        // U28: no file wrote a provider, so the built-in ones locate the machine (a [provider] table starts from
        // one provider, U17, and so the list under construction held one until now).
        if !providersWritten {
            configuration.providers = Provider.builtIn
            kindPlaces = Array(repeating: nil, count: configuration.providers.count)
        }
        try configuration.importGeoClue(providersWritten: providersWritten)
        try configuration.check(kindPlaces: kindPlaces)
        try configuration.resolveBrokerExecutables(places: brokerPlaces)
        configuration.importSubordinateIDs(read: readSubordinateIDs, accounts: accounts)
        return configuration
    }

    /// Reads one file's text over `base`, as ``load(path:defaultPath:)`` does for each file.
    package static func parse(
        text: String,
        file: String,
        over base: DaemonConfiguration = DaemonConfiguration()
    ) throws(ConfigurationIssue) -> DaemonConfiguration {
        var configuration = base
        var kindPlaces = [KindPlace?](repeating: nil, count: base.providers.count)
        var brokerPlaces: [ConfigurationIssue] = []
        try configuration.apply(
            TOMLDocument(file: file, text: text),
            kindPlaces: &kindPlaces,
            brokerPlaces: &brokerPlaces
        )
        try configuration.check(kindPlaces: kindPlaces)
        return configuration
    }

    /// Reads the configuration keys of a file that also holds keys of its own (a simulation scenario), over the
    /// defaults, with the same key names, checks and messages as `locd.toml`.
    /// - Parameters:
    ///   - document: the whole file.
    ///   - otherKeys: the file's own top-level keys, which the caller reads.
    package static func parse(
        document: TOMLDocument,
        otherKeys: [String]
    ) throws(ConfigurationIssue) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        var kindPlaces: [KindPlace?] = [nil]
        var brokerPlaces: [ConfigurationIssue] = []
        try configuration.apply(document, otherKeys: otherKeys, kindPlaces: &kindPlaces, brokerPlaces: &brokerPlaces)
        try configuration.check(kindPlaces: kindPlaces)
        return configuration
    }

    /// The drop-ins of `main`: the `*.toml` files of `main.d/`, by name, leaving out hidden ones.
    static func dropIns(beside main: String) throws(ConfigurationIssue) -> [String] {
        let directory = main + ".d"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue, let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else {
            throw ConfigurationIssue(file: directory, line: nil, key: nil, message: "cannot list this directory")
        }
        return names.filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }.sorted().map { directory + "/" + $0 }
    }

    private static func read(_ file: String) throws(ConfigurationIssue) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationIssue(file: file, line: nil, key: nil, message: "cannot read this file")
        }
        guard data.count <= ManifestLoader.maximumFileBytes else {
            let message = "larger than \(ManifestLoader.maximumFileBytes) bytes; a configuration is a few lines of TOML"
            throw ConfigurationIssue(file: file, line: nil, key: nil, message: message)
        }
        return [UInt8](data)
    }

    // MARK: Applying one file

    private static let topLevelKeys = [
        "socket", "state-dir", "apps-dirs", "allow-unknown-apps", "admin-group", "restricted-apps", "broker",
        "unknown-brokered-apps", "lifecycle", "limits", "provider", "administered-app", "geoclue",
    ]
    private static let brokerKeys = ["user", "executable"]
    private static let lifecycleKeys = [
        "background-grace", "relaunch-window", "relaunch-adopt", "prompt-timeout", "agent-wait",
        "always-reconfirm",
    ]
    private static let limitsKeys = [
        "max-sessions-per-app", "max-clients-per-app", "max-connections", "max-connections-per-uid", "admin-reserve",
        "idle-timeout", "max-message-bytes", "max-queued-updates", "max-write-buffer", "max-pending-writes",
        "max-held-messages", "max-pipelined-calls", "max-conditions-per-app", "max-apps-per-uid",
        "max-sessions-per-uid", "max-agents-per-uid", "subordinate-uids",
    ]
    /// `sockaddr_un.sun_path` holds 108 bytes with the terminating NUL.
    static let maximumSocketPathBytes = 107
    /// Long enough for any real timeout, short enough that deadlines stay far from `Int64` nanoseconds' end.
    private static let maximumSeconds = 1_000_000_000.0

    /// Sets every key `document` has; `kindPlaces` holds, for each provider, where its `kind` was set, so that a
    /// requirement of that kind can be reported where the kind was chosen; `brokerPlaces`, for each broker, where
    /// its `executable` is (or its table, without one), for the messages of its resolution.
    private mutating func apply(
        _ document: TOMLDocument,
        otherKeys: [String] = [],
        kindPlaces: inout [KindPlace?],
        brokerPlaces: inout [ConfigurationIssue]
    ) throws(ConfigurationIssue) {
        if document.value(["brokers"]) != nil {
            // I13: the executables alone that `brokers` listed made a broker of anyone who could run them.
            throw document.issue(
                ["brokers"],
                "brokers named programs, which any user can run; name the broker's user in a [[broker]] table "
                    + "instead: [[broker]] user = \"locd-geoclue\" executable = \"/usr/bin/locd-geoclue\""
            )
        }
        try Self.rejectUnknownKeys(document, in: [], allowed: Self.topLevelKeys + otherKeys)
        if let socket = try Self.path(document, ["socket"]) {
            guard socket.utf8.count <= Self.maximumSocketPathBytes else {
                let expected = "a socket path of at most \(Self.maximumSocketPathBytes) bytes"
                throw document.issue(["socket"], "expected \(expected), found \(socket.utf8.count) bytes")
            }
            self.socket = socket
        }
        if let directory = try Self.path(document, ["state-dir"]) { stateDirectory = directory }
        if let directories = try Self.paths(document, ["apps-dirs"]) { appsDirectories = directories }
        if let allow = try document.bool(["allow-unknown-apps"]) { allowUnknownApps = allow }
        if let group = try Self.name(document, ["admin-group"], expected: "a group name") { adminGroup = group }
        let appIDs = "an array of app ids (strings; \(AppIdentifier.rule))"
        if let apps = try document.array(["restricted-apps"], expected: appIDs, element: Self.appID) {
            restrictedApps = apps
        }
        try applyBrokers(document, places: &brokerPlaces)
        try applyAdministeredApps(document)
        try applyGeoClueTable(document)
        try applyLifecycle(document)
        try applyLimits(document)
        try applyProviders(document, kindPlaces: &kindPlaces)
    }

    /// The `[[broker]]` tables (I8, I13) and `unknown-brokered-apps` (I11). The tables of a later file replace
    /// those of an earlier one, as `[[provider]]` tables do, so that a drop-in can also remove every broker
    /// (`broker = []`).
    private mutating func applyBrokers(
        _ document: TOMLDocument,
        places: inout [ConfigurationIssue]
    ) throws(ConfigurationIssue) {
        if let tables = try document.tables(["broker"]) {
            var read: [Broker] = []
            var readPlaces: [ConfigurationIssue] = []
            for table in tables {
                try Self.rejectUnknownKeys(table, in: [], allowed: Self.brokerKeys)
                guard
                    let user = try Self.name(
                        table,
                        ["user"],
                        expected: "the user name or uid the broker runs as"
                    )
                else {
                    throw table.issue([], "each [[broker]] table needs a user: the user name or uid the broker runs as")
                }
                let path = "an absolute path of the broker's program (a link to it is followed)"
                let executable = try table.value(["executable"], expected: path, Self.absolutePath)
                read.append(Broker(user: user, executable: executable))
                readPlaces.append(table.issue(executable == nil ? [] : ["executable"], ""))
            }
            brokers = read
            places = readPlaces
        }
        let choices = UnknownBrokeredApps.allCases.map { TOMLDocument.quoted($0.rawValue) }.joined(separator: " or ")
        if let choice = try document.value(
            ["unknown-brokered-apps"],
            expected: choices,
            { value in
                value.string.flatMap(UnknownBrokeredApps.init(rawValue:))
            }
        ) {
            unknownBrokeredApps = choice
        }
    }

    private mutating func applyLifecycle(_ document: TOMLDocument) throws(ConfigurationIssue) {
        let table = ["lifecycle"]
        guard try document.table(table, expected: "a table of durations") != nil else { return }
        try Self.rejectUnknownKeys(document, in: table, allowed: Self.lifecycleKeys)
        if let span = try Self.seconds(document, table + ["background-grace"]) { lifecycle.backgroundGrace = span }
        if let span = try Self.seconds(document, table + ["relaunch-window"]) { lifecycle.relaunchWindow = span }
        if let span = try Self.seconds(document, table + ["relaunch-adopt"]) { lifecycle.relaunchAdopt = span }
        if let span = try Self.seconds(document, table + ["prompt-timeout"]) { lifecycle.promptTimeout = span }
        if let span = try Self.seconds(document, table + ["agent-wait"], zeroMeans: "no wait") {
            lifecycle.agentWait = span
        }
        if let span = try Self.seconds(document, table + ["always-reconfirm"], zeroAllowed: true) {
            lifecycle.alwaysReconfirm = span
        }
    }

    private mutating func applyLimits(_ document: TOMLDocument) throws(ConfigurationIssue) {
        let table = ["limits"]
        guard try document.table(table, expected: "a table of limits") != nil else { return }
        try Self.rejectUnknownKeys(document, in: table, allowed: Self.limitsKeys)
        func limit(_ key: String) throws(ConfigurationIssue) -> Int? {
            try document.integer(table + [key], in: 1...Int.max, expected: "a positive integer")
        }
        if let value = try limit("max-sessions-per-app") { limits.maxSessionsPerApp = value }
        if let value = try limit("max-clients-per-app") { limits.maxClientsPerApp = value }
        if let value = try limit("max-connections") { limits.maxConnections = value }
        if let value = try limit("max-connections-per-uid") { limits.maxConnectionsPerUID = value }
        if let value = try document.integer(table + ["admin-reserve"], in: 0...Int.max, expected: "an integer >= 0") {
            limits.adminReserve = value
        }
        if let span = try Self.seconds(document, table + ["idle-timeout"]) { limits.idleTimeout = span }
        if let value = try limit("max-message-bytes") { limits.maxMessageBytes = value }
        if let value = try limit("max-queued-updates") { limits.maxQueuedUpdates = value }
        if let value = try limit("max-write-buffer") { limits.maxWriteBuffer = value }
        if let value = try limit("max-pending-writes") { limits.maxPendingWrites = value }
        if let value = try limit("max-held-messages") { limits.maxHeldMessages = value }
        if let value = try limit("max-pipelined-calls") { limits.maxPipelinedCalls = value }
        if let value = try limit("max-conditions-per-app") { limits.maxConditionsPerApp = value }
        if let value = try limit("max-apps-per-uid") { limits.maxAppsPerUID = value }
        if let value = try limit("max-sessions-per-uid") { limits.maxSessionsPerUID = value }
        if let value = try limit("max-agents-per-uid") { limits.maxAgentsPerUID = value }
        let subordinates = table + ["subordinate-uids"]
        if let value = document.value(subordinates) {
            guard let path = value.string, path.isEmpty || path.hasPrefix("/") else {
                throw document.issue(subordinates, "expected an absolute path, or \"\" for none")
            }
            limits.subordinateUIDs = path.isEmpty ? nil : path
        }
    }

    // MARK: Typed reads

    static func rejectUnknownKeys(
        _ document: TOMLDocument,
        in table: [String],
        allowed: [String]
    ) throws(ConfigurationIssue) {
        for key in document.keys(table) where !allowed.contains(key) {
            let place = table.isEmpty ? "at the top level" : "in [\(TOMLDocument.display(table))]"
            throw document.issue(table + [key], "unknown key; allowed \(place): \(allowed.joined(separator: ", "))")
        }
    }

    /// An absolute path with no empty, `.` or `..` component: what `/proc/PID/exe` can show.
    private static func absolutePath(_ value: TOMLValueConvertible) -> String? {
        guard let path = value.string, path.hasPrefix("/"), path.count > 1, !path.hasSuffix("/") else { return nil }
        let components = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
        return path
    }

    private static func nonEmptyString(_ value: TOMLValueConvertible) -> String? {
        value.string.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A string that is an app id (I15).
    private static func appID(_ value: TOMLValueConvertible) -> String? {
        value.string.flatMap { AppIdentifier.isValid($0) ? $0 : nil }
    }

    /// The app id at `path` (I15), if present; anything else is an issue naming the rule.
    static func appID(_ document: TOMLDocument, _ path: [String]) throws(ConfigurationIssue) -> String? {
        guard let id = try name(document, path, expected: "an app id") else { return nil }
        guard AppIdentifier.isValid(id) else { throw document.issue(path, "not an app id: \(AppIdentifier.rule)") }
        return id
    }

    /// A duration in seconds, > 0 (or ≥ 0 with `zeroAllowed`, where 0 turns something off).
    static func seconds(
        _ document: TOMLDocument,
        _ path: [String],
        zeroAllowed: Bool = false,
        zeroMeans: String? = nil
    ) throws(ConfigurationIssue) -> Span? {
        let zero = zeroMeans.map { "0: \($0)" } ?? (zeroAllowed ? "0 turns it off" : nil)
        let range = (zero != nil ? 0 : Double.leastNonzeroMagnitude)...Double.infinity
        let expected = zero.map { "a number of seconds >= 0 (\($0))" } ?? "a number of seconds > 0"
        guard let seconds = try document.number(path, in: range, expected: expected) else {
            return nil
        }
        guard seconds <= maximumSeconds else {
            let expected = "a number of seconds <= \(Int(maximumSeconds))"
            throw document.notAllowed(path, expected: expected, found: document.value(path) ?? seconds)
        }
        return .seconds(seconds)
    }

    static func path(_ document: TOMLDocument, _ path: [String]) throws(ConfigurationIssue) -> String? {
        try name(document, path, expected: "a path")
    }

    private static func paths(_ document: TOMLDocument, _ path: [String]) throws(ConfigurationIssue) -> [String]? {
        try document.array(path, expected: "an array of paths", element: nonEmptyString)
    }

    /// A string that must not be empty.
    static func name(
        _ document: TOMLDocument,
        _ path: [String],
        expected: String
    ) throws(ConfigurationIssue) -> String? {
        guard let value = document.value(path) else { return nil }
        guard let string = value.string else { throw document.wrongType(path, expected: expected, found: value) }
        guard !string.isEmpty else { throw document.notAllowed(path, expected: "a non-empty string", found: value) }
        return string
    }
}
