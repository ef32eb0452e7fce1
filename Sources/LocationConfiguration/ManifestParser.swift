import AppIdentifiers
import LocationCore
import TOMLKit

/// Turns one manifest file into a ``LocationCore/Manifest`` (SEMANTICS §2, M1).
///
/// Keys keep Apple's spelling: `id` (required, equal to the file name stem),
/// `NSLocationWhenInUseUsageDescription`, `NSLocationAlwaysAndWhenInUseUsageDescription`,
/// `NSLocationTemporaryUsageDescriptionDictionary` (table of purpose key → reason),
/// `NSLocationDefaultAccuracyReduced`, `CLRequireExplicitServiceSession` (or its synonym
/// `NSLocationRequireExplicitServiceSession`), `UIBackgroundModes` (`"location"` allows background activity
/// sessions), `LSBackgroundOnly` (no window: asks for Always, L14), `identity` (required in a file: `"executable"`, `"uid"` or `"any"`, M4), `executables` (absolute
/// paths) and `users` (names or uids). A parse error, a missing `id` or `identity`, or a value of the wrong type
/// rejects the file; an unknown key is a warning, because Info.plist files carry many keys. No input traps.
package enum ManifestParser {
    package typealias Outcome = (manifest: Manifest?, errors: [ConfigurationIssue], warnings: [ConfigurationIssue])

    static let idKey = "id"
    static let accuracyReducedKey = "NSLocationDefaultAccuracyReduced"
    static let explicitSessionKey = "CLRequireExplicitServiceSession"
    static let explicitSessionSynonym = "NSLocationRequireExplicitServiceSession"
    static let backgroundModesKey = "UIBackgroundModes"
    static let identityKey = "identity"
    static let executablesKey = "executables"
    static let usersKey = "users"
    /// What to write when `identity` is missing (M4).
    static let identityMissing = """
        required: who may say Hello as this app. Write identity = "executable" with executables = \
        ["/usr/bin/PROGRAM"] (the app's own programs, as /proc/PID/exe names them), or identity = "uid" with \
        users = ["USER"]; identity = "any" lets every process be this app (demos only)
        """

    static let knownKeys: Set<String> = [
        idKey, Manifest.whenInUseKey, Manifest.alwaysKey, Manifest.temporaryKey, accuracyReducedKey,
        explicitSessionKey, explicitSessionSynonym, backgroundModesKey, identityKey, executablesKey, usersKey,
        Manifest.legacyAlwaysKey, Manifest.backgroundOnlyKey,
    ]

    /// The app id a manifest at `file` must declare: its name without the directory and `.toml`.
    static func stem(of file: String) -> String {
        let name = file.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? file
        return name.hasSuffix(".toml") ? String(name.dropLast(".toml".count)) : name
    }

    /// Parses raw file contents.
    /// - Parameter resolvingExecutables: resolve `executables` with realpath(3) (M5), as loading from `apps-dirs`
    ///   does; without it the manifest is read alone, touching no other file.
    package static func parse(bytes: [UInt8], file: String, resolvingExecutables: Bool = false) -> Outcome {
        do {
            return read(try TOMLDocument(file: file, bytes: bytes), resolvingExecutables: resolvingExecutables)
        } catch {
            return (nil, [error], [])
        }
    }

    /// Parses text already decoded.
    static func parse(text: String, file: String) -> Outcome {
        do {
            return read(try TOMLDocument(file: file, text: text))
        } catch {
            return (nil, [error], [])
        }
    }

    /// Parses a manifest written as a table inside another file (a simulation scenario's `[apps."ID"]`): the
    /// same keys and checks, except that `id` may be left out, the table's name giving it, and so may `identity`:
    /// a scenario checks no process (M4).
    /// - Parameters:
    ///   - document: the table, scoped with ``TOMLDocument/scoped(to:)`` so that messages name its whole path.
    ///   - appID: the table's name, which `id` must equal when it is written.
    package static func parse(inline document: TOMLDocument, appID: String) -> Outcome {
        read(document, stem: appID, isFile: false)
    }

    private static func read(_ document: TOMLDocument, resolvingExecutables: Bool = false) -> Outcome {
        read(document, stem: stem(of: document.file), isFile: true, resolvingExecutables: resolvingExecutables)
    }

    /// - Parameters:
    ///   - isFile: a manifest file of `apps-dirs`, which must name its `id` and `identity`; else a scenario's
    ///     inline manifest.
    ///   - resolvingExecutables: resolve `executables` (M5).
    private static func read(
        _ document: TOMLDocument,
        stem: String,
        isFile: Bool,
        resolvingExecutables: Bool = false
    ) -> Outcome {
        var errors: [ConfigurationIssue] = []
        var warnings: [ConfigurationIssue] = []
        /// Runs one key's read, keeping its issue and going on, so that one pass reports every bad key.
        func collect<Value>(_ read: () throws(ConfigurationIssue) -> Value?) -> Value? {
            do {
                return try read()
            } catch {
                errors.append(error)
                return nil
            }
        }

        for key in document.keys([]) where !knownKeys.contains(key) {
            warnings.append(document.issue([key], "unknown key, ignored"))
        }

        let id = collect { () throws(ConfigurationIssue) in try appID(document, stem: stem, idRequired: isFile) }
        let whenInUse = collect { () throws(ConfigurationIssue) in try document.string([Manifest.whenInUseKey]) }
        let always = collect { () throws(ConfigurationIssue) in try document.string([Manifest.alwaysKey]) }
        let temporary = collect { () throws(ConfigurationIssue) in try temporaryDescriptions(document) }
        let reduced = collect { () throws(ConfigurationIssue) in try document.bool([accuracyReducedKey]) }
        let explicit = collect { () throws(ConfigurationIssue) in try explicitServiceSession(document) }
        let modes = collect { () throws(ConfigurationIssue) in
            try document.array([backgroundModesKey], expected: "an array of strings") { $0.string }
        }
        let legacyAlways = collect { () throws(ConfigurationIssue) in try document.string([Manifest.legacyAlwaysKey]) }
        let backgroundOnly = collect { () throws(ConfigurationIssue) in try document.bool([Manifest.backgroundOnlyKey])
        }
        if backgroundOnly == true, always == nil {
            errors.append(
                document.issue(
                    [Manifest.backgroundOnlyKey],
                    "an app with no window is never in front and asks for Always: add \(Manifest.alwaysKey), "
                        + "saying why it needs location without a window (SEMANTICS L14)"
                )
            )
        }
        if legacyAlways != nil {
            warnings.append(
                document.issue(
                    [Manifest.legacyAlwaysKey],
                    "the iOS 8 key, not read: use \(Manifest.alwaysKey) (with \(Manifest.whenInUseKey)) instead"
                )
            )
        }
        let identity = collect { () throws(ConfigurationIssue) in try self.identity(document, required: isFile) }
        let executables = collect { () throws(ConfigurationIssue) in try self.executables(document) }
        let users = collect { () throws(ConfigurationIssue) in try self.users(document) }

        guard errors.isEmpty, let id else { return (nil, byLine(errors), byLine(warnings)) }
        var manifest = Manifest(
            appID: id,
            source: document.file,
            whenInUseUsageDescription: whenInUse,
            alwaysAndWhenInUseUsageDescription: always,
            temporaryUsageDescriptions: temporary ?? [:],
            defaultAccuracyReduced: reduced ?? false,
            requireExplicitServiceSession: explicit ?? false,
            backgroundLocation: modes?.contains("location") ?? false,
            legacyAlwaysUsageDescription: legacyAlways != nil,
            identity: identity ?? .executable,
            executables: executables ?? [],
            users: users ?? []
        )
        manifest.backgroundOnly = backgroundOnly ?? false
        warnings += identityWarnings(manifest, document)
        if resolvingExecutables && manifest.identity == .executable {
            let resolution = resolve(manifest.executables, document)
            warnings += resolution.warnings
            guard resolution.errors.isEmpty else { return (nil, byLine(resolution.errors), byLine(warnings)) }
            manifest.resolvedExecutables = resolution.resolved
        }
        return (manifest, [], byLine(warnings))
    }

    /// M5: each path of `executables` resolved with realpath(3). One that leads to no program that can run (a
    /// dangling link, a loop, a directory, a file no one may execute) is an error of the manifest; those that do
    /// not exist are one warning (the app is not installed, or a path is wrong) and match nothing.
    private static func resolve(
        _ executables: [String],
        _ document: TOMLDocument
    ) -> (resolved: [String: String], errors: [ConfigurationIssue], warnings: [ConfigurationIssue]) {
        var resolved: [String: String] = [:]
        var errors: [ConfigurationIssue] = []
        var missing: [String] = []
        for path in executables {
            switch ExecutableResolution.resolve(path) {
            case .resolved(let target):
                resolved[path] = target
            case .missing:
                missing.append(path)
            case .unusable(let why):
                let message =
                    "\(TOMLDocument.quoted(path)) \(why): no process can run it; name the program itself (as "
                    + "/proc/PID/exe shows it) or a link to it, or remove it from executables"
                errors.append(document.issue([executablesKey], message))
            }
        }
        guard !missing.isEmpty else { return (resolved, errors, []) }
        let paths = missing.map(TOMLDocument.quoted).joined(separator: ", ")
        let verb = missing.count == 1 ? "does" : "do"
        let message =
            "\(paths) \(verb) not exist: not installed, or a wrong path; reload locd after installing (until then "
            + "\(missing.count == 1 ? "it matches" : "they match") no process)"
        return (resolved, errors, [document.issue([executablesKey], message)])
    }

    /// `id`: required in a manifest file, where it must equal the file's name; in an inline manifest it may be
    /// left out, and must equal the table's name.
    private static func appID(
        _ document: TOMLDocument,
        stem: String,
        idRequired: Bool
    ) throws(ConfigurationIssue) -> String? {
        // I15: the id, and so the file name it must equal, is an app id.
        guard AppIdentifier.isValid(stem) else {
            throw document.issue(
                [idKey],
                "the \(idRequired ? "file" : "table") name is not an app id: \(AppIdentifier.rule)"
            )
        }
        guard let id = try document.string([idKey]) else {
            if !idRequired { return stem }
            throw document.issue(
                [idKey],
                "required: the app id, equal to the file name \(TOMLDocument.quoted(stem))"
            )
        }
        guard id == stem else {
            throw document.issue(
                [idKey],
                "must equal the \(idRequired ? "file" : "table") name \(TOMLDocument.quoted(stem)), found \(TOMLDocument.quoted(id))"
            )
        }
        return id
    }

    private static func executables(_ document: TOMLDocument) throws(ConfigurationIssue) -> [String]? {
        try document.array([executablesKey], expected: "an array of absolute paths") { value in
            value.string.flatMap { $0.hasPrefix("/") ? $0 : nil }
        }
    }

    private static func users(_ document: TOMLDocument) throws(ConfigurationIssue) -> [String]? {
        try document.array([usersKey], expected: "an array of user names or uids") { value in
            if let name = value.string { return name.isEmpty ? nil : name }
            if let uid = value.int, (0...Int(UInt32.max - 1)).contains(uid) { return String(uid) }
            return nil
        }
    }

    /// An identity no process can meet: `executable` with no executables, `uid` with no users.
    private static func identityWarnings(_ manifest: Manifest, _ document: TOMLDocument) -> [ConfigurationIssue] {
        if manifest.identity == .executable && manifest.executables.isEmpty {
            // An inline manifest may leave identity out; its executables line is then the one to look at.
            let path = document.value([identityKey]) == nil ? [executablesKey] : [identityKey]
            return [
                document.issue(path, "identity is \"executable\" but executables is empty, so no process can say Hello")
            ]
        }
        if manifest.identity == .uid && manifest.users.isEmpty {
            return [
                document.issue([identityKey], "identity is \"uid\" but users is empty, so no process can say Hello")
            ]
        }
        return []
    }

    /// Issues in the order a person reads the file; those about the whole file first.
    private static func byLine(_ issues: [ConfigurationIssue]) -> [ConfigurationIssue] {
        let ordered = issues.enumerated().sorted {
            ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset)
        }
        return ordered.map(\.element)
    }

    private static func temporaryDescriptions(_ document: TOMLDocument) throws(ConfigurationIssue) -> [String: String]?
    {
        let expected = "a table of purpose key = description strings"
        guard try document.table([Manifest.temporaryKey], expected: expected) != nil else { return nil }
        var descriptions: [String: String] = [:]
        for purpose in document.keys([Manifest.temporaryKey]) {
            guard let description = try document.string([Manifest.temporaryKey, purpose]) else { continue }
            descriptions[purpose] = description
        }
        return descriptions
    }

    /// Either spelling; both may be written if they agree.
    private static func explicitServiceSession(_ document: TOMLDocument) throws(ConfigurationIssue) -> Bool? {
        let apple = try document.bool([explicitSessionKey])
        let synonym = try document.bool([explicitSessionSynonym])
        if let apple, let synonym, apple != synonym {
            throw document.issue(
                [explicitSessionSynonym],
                "contradicts \(explicitSessionKey) = \(apple); keep one of the two spellings"
            )
        }
        return apple ?? synonym
    }

    /// `identity`: required in a manifest file (M4), where leaving it out once meant `executable` with no
    /// executables, which refused every `Hello`; the error sits on the line of `id`, beside which it goes.
    private static func identity(
        _ document: TOMLDocument,
        required: Bool
    ) throws(ConfigurationIssue) -> Manifest.Identity? {
        let path = [identityKey]
        let expected = "one of \"executable\", \"uid\", \"any\""
        guard let value = document.value(path) else {
            guard required else { return nil }
            var issue = document.issue(path, Self.identityMissing)
            issue.line = document.line(of: [idKey])
            throw issue
        }
        guard let name = value.string else { throw document.wrongType(path, expected: expected, found: value) }
        guard let identity = Manifest.Identity(rawValue: name) else {
            throw document.notAllowed(path, expected: expected, found: value)
        }
        return identity
    }
}
