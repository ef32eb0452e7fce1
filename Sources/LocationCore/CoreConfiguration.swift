/// The parts of the daemon configuration (SEMANTICS §11) that the rules read.
package struct CoreConfiguration: Hashable, Codable, Sendable {
    /// `[lifecycle] background-grace`, default 10 s (L2).
    package var backgroundGrace: Span
    /// `[lifecycle] relaunch-window`, default 10 s (L3).
    package var relaunchWindow: Span
    /// `[lifecycle] relaunch-adopt`, default 5 s (L4).
    package var relaunchAdopt: Span
    /// `[lifecycle] prompt-timeout`, default 120 s (P8).
    package var promptTimeout: Span
    /// `[lifecycle] agent-wait`: how long a shown prompt waits for an agent when none is there (P14). The daemon's
    /// default is 5 s; the core's own is `nil`, no wait at all, so that the seeds' rules, which assume a dialog is
    /// always there as on iOS, are driven without agents.
    package var agentWait: Span?
    /// `[lifecycle] always-reconfirm`, default 259200 s = 3 days of background use under Always; 0: off (P12).
    package var alwaysReconfirm: Span
    /// `[limits] max-sessions-per-app`, default 64 (S5).
    package var maxSessionsPerApp: Int
    /// `[limits] max-clients-per-app`, default 32 (S5).
    package var maxClientsPerApp: Int
    /// `[limits] max-conditions-per-app`, default 1000 (F7).
    package var maxConditionsPerApp: Int
    /// `[limits] max-apps-per-uid`, default 128: the apps one user may have (F20, H8).
    package var maxAppsPerUID: Int
    /// `[limits] max-sessions-per-uid`, default 1024: live sessions of one user's apps together (H8).
    package var maxSessionsPerUID: Int
    /// `[limits] max-agents-per-uid`, default 8: `Prompts` and `Watch` streams of one user who may not administer (H8).
    package var maxAgentsPerUID: Int
    /// `allow-unknown-apps`, default false (M3).
    package var allowUnknownApps: Bool
    /// `unknown-brokered-apps`, default `ask` (I11).
    package var unknownBrokeredApps: UnknownBrokeredApps
    /// `restricted-apps`, default empty (A1).
    package var restrictedApps: Set<String>
    /// `[[administered-app]]` by app id, default none (G32).
    package var administeredApps: [String: AdministeredApp]
    /// The ranges of `[limits] subordinate-uids` (`/etc/subuid`): whom each per-uid bound counts a uid against (H9).
    package var subordinateIDs: DelegatedUIDs

    package init(
        backgroundGrace: Span = .seconds(10),
        relaunchWindow: Span = .seconds(10),
        relaunchAdopt: Span = .seconds(5),
        promptTimeout: Span = .seconds(120),
        agentWait: Span? = nil,
        alwaysReconfirm: Span = .seconds(259_200),
        maxSessionsPerApp: Int = 64,
        maxClientsPerApp: Int = 32,
        maxConditionsPerApp: Int = 1000,
        maxAppsPerUID: Int = 128,
        maxSessionsPerUID: Int = 1024,
        maxAgentsPerUID: Int = 8,
        allowUnknownApps: Bool = false,
        unknownBrokeredApps: UnknownBrokeredApps = .ask,
        restrictedApps: Set<String> = [],
        administeredApps: [String: AdministeredApp] = [:],
        subordinateIDs: DelegatedUIDs = DelegatedUIDs()
    ) {
        self.backgroundGrace = backgroundGrace
        self.relaunchWindow = relaunchWindow
        self.relaunchAdopt = relaunchAdopt
        self.promptTimeout = promptTimeout
        self.agentWait = agentWait
        self.alwaysReconfirm = alwaysReconfirm
        self.maxSessionsPerApp = maxSessionsPerApp
        self.maxClientsPerApp = maxClientsPerApp
        self.maxConditionsPerApp = maxConditionsPerApp
        self.maxAppsPerUID = maxAppsPerUID
        self.maxSessionsPerUID = maxSessionsPerUID
        self.maxAgentsPerUID = maxAgentsPerUID
        self.allowUnknownApps = allowUnknownApps
        self.unknownBrokeredApps = unknownBrokeredApps
        self.restrictedApps = restrictedApps
        self.administeredApps = administeredApps
        self.subordinateIDs = subordinateIDs
    }
}
