/// The resident notification that says which apps use location where the session has no tray (SEMANTICS N5).
extension Notification {
    /// The key of its one action, which opens the settings.
    static let settingsKey = "settings"
    /// The icon of the indicator, in the tray and on the notification: the theme's location icon.
    static let indicatorIcon = "find-location"

    /// The notification that shows `use`.
    /// - Parameters:
    ///   - replaces: the notification it shows again in place, so that a changed list does not pile up.
    ///   - canAsk: whether the server shows actions; without, there is no Settings button to offer.
    ///   - markup: whether the server reads the body as markup, so that the apps' names are escaped.
    init(use: LocationUse, replaces: UInt32, canAsk: Bool, markup: Bool) {
        let body = use.lines.joined(separator: "\n")
        self.init(
            replacesID: replaces,
            appIcon: Self.indicatorIcon,
            summary: use.summary,
            body: markup ? Self.escaped(body) : body,
            actions: canAsk ? [Action(key: Self.settingsKey, label: "Settings")] : [],
            // Low: it informs, asks nothing, and must not push the prompts aside.
            urgency: 0,
            resident: true,
            desktopEntry: nil,
            imagePath: nil,
            // It stays while the apps use location; the agent closes it when none does.
            expireTimeout: 0
        )
    }
}
