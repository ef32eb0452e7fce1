/// An app's declaration of what it may ask for: the Info.plist of this system (SEMANTICS §2).
///
/// Parsed from TOML outside the core; here it is a plain value.
package struct Manifest: Hashable, Codable, Sendable {
    /// How `Hello` is verified (SEMANTICS I1).
    package enum Identity: String, CaseIterable, Codable, Sendable {
        case executable
        case uid
        case any
    }

    package var appID: String
    /// Where the manifest came from, for messages that say which file to edit.
    package var source: String
    package var whenInUseUsageDescription: String?
    package var alwaysAndWhenInUseUsageDescription: String?
    package var temporaryUsageDescriptions: [String: String]
    package var defaultAccuracyReduced: Bool
    package var requireExplicitServiceSession: Bool
    package var backgroundLocation: Bool
    /// `LSBackgroundOnly`: the app shows no window, so it is never in front and asks for Always (L14).
    package var backgroundOnly = false
    /// The manifest has the iOS 8 `NSLocationAlwaysUsageDescription`, which no rule reads; S2's errors name it
    /// and the key that replaced it.
    package var legacyAlwaysUsageDescription: Bool
    package var identity: Identity
    /// `executables` as written, for messages that say which line to edit.
    package var executables: [String]
    /// What each of ``executables`` resolved to with realpath(3) when the manifest was loaded (M5): written path →
    /// resolved path, leaving out a path that did not exist (the app is not installed), which matches nothing.
    /// `nil` for a manifest never resolved (a scenario's, one built in memory): its paths are compared as written.
    package var resolvedExecutables: [String: String]?
    package var users: [String]

    package init(
        appID: String,
        source: String = "",
        whenInUseUsageDescription: String? = nil,
        alwaysAndWhenInUseUsageDescription: String? = nil,
        temporaryUsageDescriptions: [String: String] = [:],
        defaultAccuracyReduced: Bool = false,
        requireExplicitServiceSession: Bool = false,
        backgroundLocation: Bool = false,
        legacyAlwaysUsageDescription: Bool = false,
        identity: Identity = .executable,
        executables: [String] = [],
        users: [String] = []
    ) {
        self.appID = appID
        self.source = source.isEmpty ? "apps.d/\(appID).toml" : source
        self.whenInUseUsageDescription = whenInUseUsageDescription
        self.alwaysAndWhenInUseUsageDescription = alwaysAndWhenInUseUsageDescription
        self.temporaryUsageDescriptions = temporaryUsageDescriptions
        self.defaultAccuracyReduced = defaultAccuracyReduced
        self.requireExplicitServiceSession = requireExplicitServiceSession
        self.backgroundLocation = backgroundLocation
        self.legacyAlwaysUsageDescription = legacyAlwaysUsageDescription
        self.identity = identity
        self.executables = executables
        self.users = users
    }

    /// The paths `/proc/PID/exe` of a process is compared with for `identity = "executable"` (I1, I9, M5): the
    /// resolved ones where the manifest was resolved, else those written.
    package var comparedExecutables: [String] {
        guard let resolvedExecutables else { return executables }
        return executables.compactMap { resolvedExecutables[$0] }
    }

    /// ``executables`` for a refusal's log: each as written and, where that differs, as resolved, or as missing when
    /// loaded (M5), so that the log names what was compared.
    package var comparedExecutablesDescription: String {
        guard !executables.isEmpty else { return "(none)" }
        return executables.map { written in
            guard let resolvedExecutables else { return written }
            guard let resolved = resolvedExecutables[written] else { return "\(written) (did not exist when loaded)" }
            return resolved == written ? written : "\(written) (resolved: \(resolved))"
        }.joined(separator: ", ")
    }

    /// The manifest an unknown app gets when `allow-unknown-apps` is on (M3).
    package static func unknownApp(_ appID: String) -> Manifest {
        Manifest(
            appID: appID,
            source: "(allow-unknown-apps)",
            whenInUseUsageDescription: "(no description)",
            alwaysAndWhenInUseUsageDescription: "(no description)",
            identity: .any
        )
    }

    /// What `ListApps` shows as the manifest of an app that has none, not even a stand-in (F20).
    package static let noneSource = "(none)"

    /// The source of the manifest an app with no manifest gets when a broker speaks for it (I11).
    package static let brokeredSource = "(unknown-brokered-apps)"

    /// The manifest an app with no manifest gets when a broker speaks for it and `unknown-brokered-apps` is
    /// `ask` (I11): it may ask for when-in-use, with the app's own words if the broker passed them.
    package static func unknownBrokeredApp(_ appID: String, description: String?) -> Manifest {
        Manifest(
            appID: appID,
            source: brokeredSource,
            whenInUseUsageDescription: description ?? "(no description)",
            identity: .any
        )
    }

    /// Whether locd made this manifest up for an app that has none (M3, I11), rather than reading it from a file.
    package var isStandIn: Bool {
        source == Manifest.brokeredSource || source == Manifest.unknownApp(appID).source
    }

    package static let whenInUseKey = "NSLocationWhenInUseUsageDescription"
    package static let alwaysKey = "NSLocationAlwaysAndWhenInUseUsageDescription"
    package static let temporaryKey = "NSLocationTemporaryUsageDescriptionDictionary"
    /// iOS 8's key for Always, replaced by ``alwaysKey`` in iOS 11 (seed 004 lists it; seed 002 uses the new one).
    package static let legacyAlwaysKey = "NSLocationAlwaysUsageDescription"
    /// Apple's key for an app with no user interface (L14).
    package static let backgroundOnlyKey = "LSBackgroundOnly"

    /// The usage-description key a requirement needs and lacks, if any (S2).
    func missingDescription(for requirement: Requirement) -> String? {
        if requirement >= .whenInUse && whenInUseUsageDescription == nil { return Manifest.whenInUseKey }
        if requirement == .always && alwaysAndWhenInUseUsageDescription == nil { return Manifest.alwaysKey }
        return nil
    }

    /// S2's error for a missing key; it names the iOS 8 key too when the manifest has that instead (S2).
    func missing(_ key: String) -> LocationError {
        .usageDescriptionMissing(
            key: key,
            manifest: source,
            legacyKey: legacyAlwaysUsageDescription ? Manifest.legacyAlwaysKey : nil
        )
    }

    /// S2: why a session of `requirement` (and `purposeKey`) may not be created, if it may not.
    func declarationFailure(for requirement: Requirement, purposeKey: String?) -> LocationError? {
        if let key = missingDescription(for: requirement) {
            return missing(key)
        }
        if let purposeKey, temporaryUsageDescriptions[purposeKey] == nil {
            return .unknownPurposeKey(purposeKey: purposeKey, manifest: source)
        }
        return nil
    }
}
