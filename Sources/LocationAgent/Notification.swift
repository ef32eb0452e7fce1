/// One desktop notification as `org.freedesktop.Notifications.Notify` takes it: what the core decides, and the shell
/// sends as it is.
struct Notification: Equatable, Sendable {
    /// One button: the key `ActionInvoked` names, and its label.
    struct Action: Equatable, Sendable {
        var key: String
        var label: String
    }

    /// The notification this one shows again in place (`replaces_id`), or 0 for a new one.
    var replacesID: UInt32 = 0
    var appIcon = ""
    var summary: String
    var body: String
    var actions: [Action] = []
    /// The `urgency` hint: 2, critical, for a question that waits for the person (N2).
    var urgency: UInt8 = 2
    /// The `resident` hint: a chosen action does not remove it; locd's withdrawal does (N3).
    var resident = true
    /// The `desktop-entry` hint: the app the question is about.
    var desktopEntry: String?
    /// The `image-path` hint: the app's icon.
    var imagePath: String?
    /// `expire_timeout`: 0, never, since the prompt waits for the person, not for the notification (N2).
    var expireTimeout: Int32 = 0

    /// The `app_name` of every notification of the agent.
    static let appName = "Location Services"
}
