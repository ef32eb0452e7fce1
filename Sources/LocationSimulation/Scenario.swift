import LocationCore

/// A flow to simulate: the apps' manifests, the rule settings, and a timeline of what the apps, the person and
/// the administrator do, each at a moment in seconds from the start.
///
/// It is read from TOML by ``ScenarioParser``; ``Simulator`` runs it through ``LocationCore`` in virtual time.
package struct Scenario: Hashable, Sendable {
    /// The scenario file's name without its directory: messages and output name it, so that they do not depend
    /// on where the file was run from.
    package var name: String
    /// The file as it was named, for messages about events that cannot run.
    package var file: String
    package var manifests: [Manifest]
    package var configuration: CoreConfiguration
    /// Whether a prompt agent is connected: without one, prompts can only time out (P8) and `answer` is refused.
    package var agent: Bool
    /// When virtual time stops; `nil` runs on until no deadline is left.
    package var until: Double?
    package var events: [ScenarioEvent]

    package init(
        name: String,
        file: String? = nil,
        manifests: [Manifest],
        configuration: CoreConfiguration = CoreConfiguration(),
        agent: Bool = true,
        until: Double? = nil,
        events: [ScenarioEvent]
    ) {
        self.name = name
        self.file = file ?? name
        self.manifests = manifests
        self.configuration = configuration
        self.agent = agent
        self.until = until
        self.events = events
    }
}

/// One step of a scenario's timeline.
package struct ScenarioEvent: Hashable, Sendable {
    /// Seconds from the start of the scenario.
    package var at: Double
    /// The app it concerns; `nil` for events about the whole system (`services-off`, `fix`).
    package var app: String?
    /// The user whose app it is, or whose own switch it turns (`user = "alice"`, H1, H6); `nil`: the one person.
    package var user: String?
    package var action: ScenarioAction
    /// Its 1-based position among the scenario's `[[events]]`, and the line of its header, for messages.
    package var index: Int
    package var line: Int?

    package init(at: Double, app: String?, user: String? = nil, action: ScenarioAction, index: Int, line: Int? = nil) {
        self.at = at
        self.app = app
        self.user = user
        self.action = action
        self.index = index
        self.line = line
    }
}

/// What happens at a scenario event: an app's call, a process starting or dying, an admin's or the person's act.
package enum ScenarioAction: Hashable, Sendable {
    /// A new process connects and says `Hello` (L1).
    case launch(state: RunningState?)
    /// `CreateSession`; `name` lets later events refer to the session.
    case createSession(Requirement, purposeKey: String?, name: String?)
    case invalidateSession(name: String)
    /// The agent answers the app's head prompt (§6).
    case answer(PromptAnswer, accuracy: PromptAccuracy?)
    /// `SetAppState` from the app.
    case background
    case foreground
    /// The process dies: its connection closes without `Goodbye` (L3).
    case terminate
    /// A new process says `Hello` and, with `resume`, takes back each lingering session (L4, S14).
    case relaunch(state: RunningState?, resume: Bool)
    /// `Admin.SetLocationServices` (A4).
    case servicesOff
    case servicesOn
    /// `Admin.SetAuthorization` (A3).
    case setAuthorization(AuthorizationSetting?, precise: Bool?)
    /// `Admin.LocationButton` (P11).
    case locationButton
    /// The legacy request calls (P10).
    case requestAuthorization(RequestLevel)
    case requestTemporaryFullAccuracy(purposeKey: String)
    /// `BeginBackgroundActivity` (S12).
    case beginBackgroundActivity(name: String?)
    /// `Goodbye` from the app's process, which then exits (L3).
    case goodbye
    /// `LiveUpdates`: a stream, with an implicit session unless the app holds an explicit one (S10, S11).
    case liveUpdates(name: String?)
    /// The provider reports a fix, or loses it (D9).
    case fix(latitude: Double, longitude: Double, accuracy: Double)
    case fixLost
}
