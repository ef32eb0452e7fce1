/// A background activity session, like `CLBackgroundActivitySession`: while the app holds it, the app stays in use
/// in the background, and the system shows it as using location in the background.
///
/// Available only while the app is in the foreground, authorized, and lists `location` in `UIBackgroundModes`.
/// Like service sessions it survives a daemon restart, because the client takes it back by itself.
public final class BackgroundActivitySession: Sendable {
    /// The daemon's id of the session.
    public let id: String
    private let link: AppLink

    init(id: String, link: AppLink) {
        self.id = id
        self.link = link
    }

    /// Ends the session now; returns at once and tells the daemon in the background.
    public func invalidate() {
        let link = self.link
        let id = self.id
        Task { await link.invalidate(id) }
    }
}
