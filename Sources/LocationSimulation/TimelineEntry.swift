/// One line of a simulated timeline: something that happened at a moment, to an app or to the whole system.
///
/// ``what`` is the sentence the table prints; the other fields carry the same facts for `--json`, with stable
/// names, and are left out where they do not apply.
package struct TimelineEntry: Hashable, Codable, Sendable {
    /// What the line is about.
    package enum Subject: String, Hashable, Codable, Sendable {
        /// A scenario event, as the file wrote it.
        case event
        /// The app's lifecycle state, or whether it is in use (L2).
        case app
        case authorization
        case prompt
        case session
        /// A `LiveUpdates` stream's diagnostics.
        case updates
        /// The global location-services switch.
        case services
        /// Whether the location provider runs (U3).
        case provider
        /// An error a call returned.
        case error
    }

    /// Seconds from the start of the scenario, to the millisecond.
    package var time: Double
    package var app: String?
    package var subject: Subject
    /// The session's or stream's name, or the prompt's id.
    package var name: String?
    /// The line as the table prints it.
    package var what: String

    /// `event`: the event's name as the scenario writes it.
    package var event: String?
    /// `authorization`: the record as replies show it (A2).
    package var status: String?
    package var settingsLabel: String?
    package var accuracy: String?
    package var oneTime: Bool?
    package var provisional: Bool?
    package var temporaryFullAccuracy: Bool?
    /// `app`: the lifecycle state; `session`: `active`, `limited`, `lingering` or `ended`; `services`: `on`/`off`;
    /// `provider`: `running`/`idle`.
    package var state: String?
    /// `session`: when a lingering session ends unless it is resumed or covered (L3, L4), in scenario seconds.
    package var until: Double?
    /// `app`: whether the app is in use after this line (L2).
    package var inUse: Bool?
    /// `session`, `updates`: every diagnostic flag set, and the ones this line set and cleared (§7).
    package var flags: [String]?
    package var added: [String]?
    package var removed: [String]?
    /// `session`: its kind and requirement when created; why it ended.
    package var kind: String?
    package var requirement: String?
    package var reason: String?
    /// `prompt`: its kind, options, accuracy presentation and how it was resolved (§6).
    package var promptKind: String?
    package var options: [String]?
    package var purposeKey: String?
    package var defaultAccuracy: String?
    package var accuracyToggle: Bool?
    package var resolution: String?
    /// `error`: the Varlink error name and what to do.
    package var error: String?
    package var message: String?

    package init(time: Double, app: String?, subject: Subject, name: String? = nil, what: String) {
        self.time = time
        self.app = app
        self.subject = subject
        self.name = name
        self.what = what
    }
}
