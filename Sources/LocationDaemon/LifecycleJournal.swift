import LocationCore
import Logging
import SystemdSupport

/// The journal's record of what the daemon stored: a decision, a session created or ended, a prompt shown
/// or resolved, the global switch, each a structured log entry with `LOCD_APP`, `LOCD_SESSION` and a fixed
/// `MESSAGE_ID` (STYLE habit 7).
///
/// A session or a prompt is logged once when it appears, not at each of its updates. Loop-bound.
struct LifecycleJournal {
    private let logger: Logger
    /// Whether lifecycle events are logged: the level is set once, at start, and asking the log handler for
    /// it at every write cost more than the check. Below info nothing is written, nor worth remembering.
    private let journals: Bool
    /// Sessions and shown prompts already logged as created, so updates are not logged again.
    private var loggedSessions: Set<SessionID> = []
    private var loggedPrompts: Set<PromptID> = []
    /// The users already told that nobody could be asked (P14): each once, and at most 4,096 remembered.
    private var toldNobodyToAsk: Set<UInt32?> = []

    init(logger: Logger) {
        self.logger = logger
        journals = logger.logLevel <= .info
    }

    /// Logs `write` if it is a lifecycle event.
    mutating func record(_ write: Persist) {
        guard journals else { return }
        switch write {
        case .record(let app, let record):
            logger.info(
                "authorization of \(app): \(record.status.rawValue) (\(record.settingsLabel.rawValue))",
                metadata: MessageID.authorizationChanged.metadata.merging(Self.fields(of: app)) { $1 }
            )
        case .session(let session) where loggedSessions.insert(session.id).inserted:
            logger.info(
                "session \(session.id) of \(session.app): \(session.kind.rawValue) \(session.requirement.rawValue)",
                metadata: MessageID.sessionCreated.metadata.merging([
                    "locd.session": "\(session.id)"
                ]) { $1 }.merging(Self.fields(of: session.app)) { $1 }
            )
        case .sessionRemoved(_, let id):
            loggedSessions.remove(id)
            logger.info(
                "session \(id) ended",
                metadata: MessageID.sessionEnded.metadata.merging(["locd.session": "\(id)"]) { $1 }
            )
        case .prompt(let prompt) where prompt.raisedAt != nil && loggedPrompts.insert(prompt.id).inserted:
            logger.info(
                "prompt \(prompt.id) (\(prompt.kind.rawValue)) shown for \(prompt.app)",
                metadata: MessageID.promptRaised.metadata.merging(Self.fields(of: prompt.app)) { $1 }
            )
        case .promptRemoved(let id):
            loggedPrompts.remove(id)
            logger.info("prompt \(id) resolved", metadata: MessageID.promptResolved.metadata)
        case .locationServices(let enabled):
            logger.notice("location services \(enabled ? "on" : "off")")
        case .userLocationServices(let uid, let enabled):
            logger.notice(
                "location services \(enabled ? "on" : "off") for uid \(uid)",
                metadata: ["locd.uid": "\(uid)"]
            )
        default:
            break
        }
    }

    /// P14: a prompt of `app` was dismissed for want of an agent. Said once per user, whatever the log level: it is
    /// what an administrator needs to read to see why that user's apps are never asked.
    mutating func nobodyToAsk(_ app: AppKey) {
        if toldNobodyToAsk.count >= 4096 { toldNobodyToAsk.removeAll() }
        guard toldNobodyToAsk.insert(app.user).inserted else { return }
        let person = app.user.map { "uid \($0)" } ?? "the apps of no user"
        let text =
            "nobody could be asked about the location prompt of \(app): no agent is running for \(person). Start "
            + "locd-agent in that person's graphical session (systemctl --user enable --now locd-agent), or run "
            + "locctl agent as them; until then their prompts are dismissed after agent-wait (P14)"
        logger.warning(
            "\(text)",
            metadata: MessageID.promptResolved.metadata.merging(Self.fields(of: app)) { $1 }
        )
    }

    /// L11: the app said it is in the foreground where its desktop says it is not; the core says so once per app and
    /// desktop.
    func overruled(_ app: AppKey, desktop: String) {
        logger.notice(
            "\(app) says it is in the foreground, but \(desktop) does not show it: the desktop decides its state (L11)",
            metadata: Self.fields(of: app)
        )
    }

    /// L14: an app with no window had a While Using record, which is Always now.
    func carriedOver(_ app: AppKey) {
        let text =
            "\(app) has no window (LSBackgroundOnly), so it is never in front: its While Using authorization is now "
            + "Always, as it worked before (L14); locctl auth \(app.appID) never takes it back"
        logger.notice("\(text)", metadata: Self.fields(of: app))
    }

    /// The journal fields naming a user's app: `LOCD_APP`, and `LOCD_UID` for a user's (H1).
    private static func fields(of app: AppKey) -> Logger.Metadata {
        guard let user = app.user else { return ["locd.app": "\(app.appID)"] }
        return ["locd.app": "\(app.appID)", "locd.uid": "\(user)"]
    }
}
