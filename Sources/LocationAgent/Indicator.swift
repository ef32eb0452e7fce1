/// What the agent knows and shows of the apps using location (SEMANTICS N5): locd's `Admin.Watch` and the `Status`
/// reads it sets off, the tray if the session has one, and the resident notification where it has none.
struct Indicator: Equatable {
    /// Whether the session has a tray: someone owns `org.kde.StatusNotifierWatcher`.
    enum Tray: Equatable {
        case unknown
        case absent
        case present
    }

    /// The look of the tray item: what its `Status` and `ToolTip` say.
    struct TrayLook: Equatable, Sendable {
        var status: String
        /// The tooltip's text under its title: the apps one a line.
        var text: String

        static let title = "Location Services"

        /// The look that shows `use`: its status, and its apps or that none uses location.
        init(_ use: LocationUse) {
            status = use.trayStatus
            text = use.isEmpty ? use.summary : use.lines.joined(separator: "\n")
        }
    }

    var watch = AgentCore.Stream.closed
    /// The wait before `Watch` is opened again: 1 s doubling to 60 s, as for the prompts (N1).
    var retrySeconds = AgentCore.firstRetrySeconds
    /// A `Status` call is on its way, and whether an event came since it was sent, so that one more is due.
    var reading = false
    var readAgain = false
    var use = LocationUse.none
    var tray = Tray.unknown
    /// The look last given to the tray item, so that only a change is signalled; it starts as nothing in use.
    var trayLook = TrayLook(.none)
    /// The resident notification, while the server shows it.
    var notification: UInt32?
    /// What the notification shows, so that the same list is not sent again.
    var notificationShows: LocationUse?
    /// The person closed the notification of this ``use``: it is not shown again until the list changes.
    var dismissed = false
}
