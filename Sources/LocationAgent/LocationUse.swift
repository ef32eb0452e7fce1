/// Which of the person's apps use location now, as the indicator shows them (SEMANTICS N5): `Status`'s
/// `appsUsingLocation`, those of `appsUsingLocationInBackground` called out, by name.
///
/// Bounded whatever locd sends: the first ``shownLimit`` apps by name are kept, the rest only counted, so that a
/// notification's body and a tooltip stay readable and a `.desktop` file is read for at most that many apps.
struct LocationUse: Equatable, Sendable {
    /// One app as the person sees it.
    struct App: Equatable, Sendable {
        var name: String
        /// In the background under a While-Using grant: iOS's blue pill (seed 004).
        var inBackground: Bool
    }

    /// The apps shown, ordered by name so that a list read again in another order is the same list.
    var apps: [App]
    /// How many more apps use location than ``apps`` shows.
    var more: Int
    /// Whether any app, shown or not, uses location in the background.
    var anyInBackground: Bool

    static let shownLimit = 20
    static let none = LocationUse(apps: [], more: 0)

    init(apps: [App], more: Int, anyInBackground: Bool? = nil) {
        self.apps = apps
        self.more = more
        self.anyInBackground = anyInBackground ?? apps.contains { $0.inBackground }
    }

    /// The use `Status` tells: `using` and `background` are app ids as locd lists them, an id listed twice
    /// (another user's app of the same id, to an administrator) counted once; `name` looks an app's name up, and is
    /// asked for the shown ones only.
    init(using: [String], background: [String], name: (String) -> String) {
        var seen: Set<String> = []
        let ids = using.filter { seen.insert($0).inserted }.sorted()
        let inBackground = Set(background)
        let shown = ids.prefix(Self.shownLimit).map { App(name: name($0), inBackground: inBackground.contains($0)) }
        self.init(
            apps: shown.sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) },
            more: ids.count - shown.count,
            anyInBackground: ids.contains { inBackground.contains($0) }
        )
    }

    var isEmpty: Bool { apps.isEmpty && more == 0 }
    var count: Int { apps.count + more }

    /// The `StatusNotifierItem` status: `NeedsAttention` while an app uses location in the background, `Active`
    /// while any does, else `Passive`, which trays hide or tuck away.
    var trayStatus: String {
        if anyInBackground { return "NeedsAttention" }
        return isEmpty ? "Passive" : "Active"
    }

    /// One line saying who uses location: the notification's summary.
    var summary: String {
        if count == 1, let app = apps.first {
            return "“\(app.name)” is using your location" + (app.inBackground ? " in the background" : "")
        }
        if isEmpty { return "No app is using your location" }
        return "\(count) apps are using your location"
    }

    /// The apps one a line, those in the background marked, and how many more.
    var lines: [String] {
        var lines = apps.map { $0.name + ($0.inBackground ? " (in the background)" : "") }
        if more > 0 { lines.append("and \(more) more") }
        return lines
    }
}
