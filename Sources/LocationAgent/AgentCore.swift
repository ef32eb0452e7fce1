/// What locd-agent does, decided from what happens (SEMANTICS §16): the prompts locd sends, the notification
/// server's signals and replies, the stream's end. Deterministic: it never touches the bus, the socket or a clock;
/// each event returns the ``Action``s for the shell to carry out, and what the shell learns doing them comes back as
/// events.
struct AgentCore {
    /// What the shell does for the core.
    enum Action: Equatable, Sendable {
        /// Ask the notification server what it can do (`GetCapabilities`); the answer is
        /// ``AgentCore/capabilitiesKnown(_:)``.
        case queryCapabilities
        /// Open locd's `Admin.Prompts` stream; a failure is ``AgentCore/streamLost(_:)``.
        case openStream
        /// Close the stream: nobody could see what it sends (N4).
        case closeStream
        /// Call ``AgentCore/retryDue()`` once `seconds` have passed.
        case scheduleRetry(seconds: Double)
        /// Show `notification`; its id comes back as ``AgentCore/notificationShown(_:for:)``. `prompt` is `nil` for
        /// the notice of a server that cannot ask.
        case notify(Notification, prompt: String?)
        case closeNotification(UInt32)
        /// `Admin.AnswerPrompt(id, answer, accuracy)`, sent without waiting for the reply (N3); the reply comes back
        /// as ``AgentCore/answerTaken(_:)`` or ``AgentCore/answerRefused(_:error:)``, a call that could not be made
        /// or broke as ``AgentCore/answerFailed(_:reason:)``.
        case answer(prompt: String, answer: String, accuracy: String?)
        case log(LogLevel, String)
        /// Open `locctl agent` in a terminal (N4, `--terminal`).
        case openTerminal
        /// Open locd's `Admin.Watch` stream; open, it is ``AgentCore/watchOpened()``, and a failure
        /// ``AgentCore/watchLost(_:)`` (N5).
        case openWatch
        /// Call `Admin.Status`; the answer is ``AgentCore/statusRead(_:)``, a failure ``AgentCore/watchLost(_:)``.
        case readStatus
        /// Call ``AgentCore/watchRetryDue()`` once `seconds` have passed.
        case scheduleWatchRetry(seconds: Double)
        /// Learn whether someone owns `org.kde.StatusNotifierWatcher`; the answer is ``AgentCore/trayKnown(present:)``.
        case queryTray
        /// Register the tray item with the tray's `StatusNotifierWatcher`.
        case registerTray
        /// Give the tray item this look, signalling what changed (`NewStatus`, `NewToolTip`).
        case showTray(Indicator.TrayLook)
        /// Show the resident notification of the apps using location; its id comes back as
        /// ``AgentCore/inUseNotificationShown(_:)``.
        case notifyInUse(Notification)
        /// Open the settings, `locctl apps`, in a terminal (N5).
        case openSettings
        /// Learn whether someone owns `org.gnome.Shell`; the answer is ``AgentCore/desktopDialogChanged(present:)``.
        case queryDesktopDialog
    }

    enum LogLevel: Equatable, Sendable {
        case debug, info, warning
    }

    /// The notification server, as far as the agent knows it.
    enum Server: Equatable {
        case unknown
        case absent
        case present(canAsk: Bool, markup: Bool)
    }

    enum Stream: Equatable {
        case closed
        case open
        case waitingToReopen
    }

    /// A prompt locd sent, and its notification while one shows it.
    struct Shown: Equatable {
        var prompt: Prompt
        var app: AppLook
        var precise: Bool
        var notification: UInt32?
    }

    /// An answer sent to locd whose reply has not come yet.
    struct Answering: Equatable {
        var prompt: String
        var answer: String
        var accuracy: String?
    }

    /// Whether to open a terminal with `locctl agent` where the server cannot ask (`--terminal`).
    let opensTerminal: Bool
    var server = Server.unknown
    var stream = Stream.closed
    /// The prompts sent on the stream now open, by id, in the order they came.
    var shown: [Shown] = []
    /// The wait before the stream is opened again: 1 s, doubling to 60 s while it keeps failing (N1).
    var retrySeconds = AgentCore.firstRetrySeconds
    private var toldCannotAsk = false
    var terminalOpened = false
    /// The apps using location, and how they are shown (N5).
    var indicator = Indicator()
    /// Whether the session's shell asks GeoClue clients' authorization in a dialog of its own (N6).
    var desktopAsks = false
    /// The answers on their way to locd, in the order they were sent: at most ``mostAnswersWaiting`` (N3).
    var answering: [Answering] = []

    static let firstRetrySeconds = 1.0
    static let mostRetrySeconds = 60.0
    /// How many answers may wait for locd's replies at once; a choice beyond them is not sent, and its notification
    /// stays to be chosen again (N3).
    static let mostAnswersWaiting = 16

    init(opensTerminal: Bool = false) {
        self.opensTerminal = opensTerminal
    }

    /// The agent starts: first learn whether the desktop asks GeoClue clients itself, whether anyone can show a
    /// notification, and whether a tray can show what uses location.
    mutating func start() -> [Action] {
        indicator.watch = .open
        return [.queryDesktopDialog, .queryCapabilities, .queryTray, .openWatch]
    }

    /// `GetCapabilities` answered, or failed (`nil`): no server, D-Bus activation included (N4).
    mutating func capabilitiesKnown(_ capabilities: [String]?) -> [Action] {
        guard let capabilities else {
            var actions = forgetStream()
            if server != .absent {
                actions.append(
                    .log(
                        .warning,
                        "no notification server owns org.freedesktop.Notifications on the session bus: nobody could "
                            + "see a location prompt, so none is asked for until one starts"
                    )
                )
            }
            server = .absent
            indicator.notification = nil
            return actions
        }
        let canAsk = capabilities.contains("actions")
        let markup = capabilities.contains("body-markup")
        server = .present(canAsk: canAsk, markup: markup)
        var actions: [Action] = []
        if !canAsk && !toldCannotAsk {
            toldCannotAsk = true
            actions += [
                .log(
                    .warning,
                    "the notification server shows no actions, so prompts cannot be answered from their "
                        + "notifications: \(Notification.terminalAdvice)"
                ),
                .notify(.cannotAsk(markup: markup), prompt: nil),
            ]
        }
        if stream == .closed {
            stream = .open
            actions.append(.openStream)
        }
        return actions + showNotification()
    }

    /// A connection took `org.freedesktop.Notifications` (`NameOwnerChanged`): ask it what it can do.
    /// - Parameter replacing: whether it took the name from another server, whose notifications went with it. A name
    ///   that had no owner was taken by a server that D-Bus activation started, often for the agent's own
    ///   `GetCapabilities`, whose answer may have come first: that server is the one already known, and its prompts
    ///   stay where they are.
    mutating func serverAppeared(replacing: Bool = false) -> [Action] {
        var actions: [Action] = []
        if replacing, case .present = server { actions = serverVanished() }
        actions.append(.queryCapabilities)
        return actions
    }

    /// The server left the bus, and its notifications with it: nobody can see a prompt now (N4).
    mutating func serverVanished() -> [Action] {
        for index in shown.indices { shown[index].notification = nil }
        indicator.notification = nil
        server = .absent
        toldCannotAsk = false
        var actions = forgetStream()
        actions.append(.log(.warning, "the notification server left the session bus; waiting for another"))
        return actions
    }

    /// Closes the stream if one is open or about to be, and forgets its prompts.
    private mutating func forgetStream() -> [Action] {
        let actions: [Action] = stream == .open ? [.closeStream] : []
        stream = .closed
        shown.removeAll()
        return actions
    }

    /// locd ended the stream, refused it, or could not be reached: every prompt it sent is gone with it and will be
    /// sent again (N3); it is opened again after a wait that doubles while this keeps happening (N1).
    mutating func streamLost(_ reason: String) -> [Action] {
        guard stream == .open else { return [] }
        var actions: [Action] = shown.compactMap { $0.notification.map(Action.closeNotification) }
        shown.removeAll()
        stream = .waitingToReopen
        actions += [
            .log(.warning, "\(reason); opening the prompt stream again in \(Self.format(retrySeconds)) s"),
            .scheduleRetry(seconds: retrySeconds),
        ]
        retrySeconds = min(retrySeconds * 2, Self.mostRetrySeconds)
        return actions
    }

    /// The wait after a lost stream is over; a wait no longer needed (the server left meanwhile) does nothing.
    mutating func retryDue() -> [Action] {
        guard stream == .waitingToReopen, case .present = server else { return [] }
        stream = .open
        return [.openStream]
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

extension AgentCore {
    /// The agent stops (SIGTERM, the session ends): its notifications close, since nobody would hear their actions, and
    /// the resident one would go on saying what nobody follows any more.
    mutating func stop() -> [Action] {
        defer { shown.removeAll() }
        var actions = shown.compactMap { $0.notification.map(Action.closeNotification) }
        if let id = indicator.notification {
            indicator.notification = nil
            actions.append(.closeNotification(id))
        }
        return actions
    }
}
