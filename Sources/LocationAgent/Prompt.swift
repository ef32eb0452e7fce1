import JSON
import LocationProtocol

/// A prompt as locd sends it on `io.locd.Admin.Prompts` (PROTOCOL.md's `Prompt`), with what the agent shows of it.
struct Prompt: Equatable, Sendable {
    var id: String
    var appID: String
    /// `authorization`, `alwaysUpgrade`, `temporaryFullAccuracy` or `alwaysReconfirm`.
    var kind: String
    /// The app's words: its usage description, or for temporary full accuracy the purpose key's text.
    var usageDescription: String
    /// The answers it offers, by their wire names.
    var options: [String]
    /// Whether the answer carries an accuracy the person chooses: "Precise: On" or Off (N2).
    var accuracyToggle: Bool
    /// Whether precise location is shown on at first (`defaultAccuracy` is `full`).
    var preciseByDefault: Bool
    /// Whether a broker speaks for a process of the app (a GeoClue client through locd-geoclue): a desktop whose
    /// own GeoClue agent shows dialogs asks it there (N6).
    var brokered: Bool

    init(
        id: String,
        appID: String,
        kind: String,
        usageDescription: String,
        options: [String],
        accuracyToggle: Bool = false,
        preciseByDefault: Bool = true,
        brokered: Bool = false
    ) {
        self.id = id
        self.appID = appID
        self.kind = kind
        self.usageDescription = usageDescription
        self.options = options
        self.accuracyToggle = accuracyToggle
        self.preciseByDefault = preciseByDefault
        self.brokered = brokered
    }

    /// The prompt of a `prompt` reply; `nil` when it has no id, app or kind, which no answer could then name.
    init?(_ value: JSONValue) {
        guard let wire = WirePrompt(json: value) else { return nil }
        self.init(wire)
    }

    /// What the agent shows of a prompt of the protocol.
    init(_ wire: WirePrompt) {
        self.init(
            id: wire.id,
            appID: wire.appId,
            kind: wire.kind,
            usageDescription: wire.usageDescription,
            options: wire.options,
            accuracyToggle: wire.accuracyToggle,
            preciseByDefault: wire.defaultAccuracy != "reduced",
            brokered: wire.brokered
        )
    }
}
