import CSdBus
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The imperative shell of locd-agent: one thread that waits on the session bus, locd's prompt and event streams,
/// the answers' replies, SIGTERM and the retry timers together, hands what happens to ``AgentCore`` and carries out
/// the actions it returns. It never waits for locd: every socket to locd is non-blocking and read when poll says so.
package final class AgentShell {
    /// What the command line decides.
    package struct Configuration: Sendable {
        /// locd's socket.
        package var socketPath: String
        /// The command that opens a terminal running the words after it: for the settings (N5), and for
        /// `locctl agent` with `--terminal` (N4).
        package var terminal: [String]
        /// Whether to open `locctl agent` in the terminal where the notifications cannot ask (`--terminal`).
        package var opensTerminal: Bool
        /// `locctl`, as the terminal runs it.
        package var locctl: String
        /// Where `.desktop` files are looked up.
        package var applicationDirectories: [String]
        /// The session's environment, which names the desktop to read (N15).
        package var environment: [String: String]

        package init(
            socketPath: String,
            terminal: [String],
            opensTerminal: Bool,
            locctl: String,
            applicationDirectories: [String],
            environment: [String: String] = [:]
        ) {
            self.socketPath = socketPath
            self.terminal = terminal
            self.opensTerminal = opensTerminal
            self.locctl = locctl
            self.applicationDirectories = applicationDirectories
            self.environment = environment
        }
    }

    private let configuration: Configuration
    private let logger: Logger
    private var core: AgentCore
    private var bus: SessionBus?
    private var stream: PromptStream?
    private var watch: UseWatch?
    private var tray: TrayItem?
    /// The person's decisions kept the same in the desktop's settings (N7–N13).
    private var settings: SettingsSync?
    /// The answers on their way to locd (N3).
    private let answers: AnswerCalls
    /// When each retry is due.
    private var retryAt: ContinuousClock.Instant?
    private var watchRetryAt: ContinuousClock.Instant?
    /// The desktop read and reported to locd, where the session has one (N15).
    private var desktop: DesktopLink?

    package init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        core = AgentCore(opensTerminal: configuration.opensTerminal)
        answers = AnswerCalls(socketPath: configuration.socketPath)
    }

    /// Serves until SIGTERM or SIGINT (0), or until another agent is found to own the name (0, N1).
    /// - Throws: ``AgentFailure`` when the session bus cannot be used or goes away.
    package func run() throws(AgentFailure) {
        let signals = try Self.blockTerminationSignals()
        defer { close(signals) }
        let bus = try SessionBus()
        self.bus = bus
        guard try bus.takeAgentName() else {
            logger.notice(
                "\(SessionBus.agentName) is taken on this session bus: another locd-agent shows this session's prompts"
            )
            return
        }
        try bus.listen()
        tray = try TrayItem(bus: bus)
        settings = try SettingsSync(
            bus: bus,
            socketPath: configuration.socketPath,
            environment: configuration.environment,
            logger: logger
        )
        settings?.start()
        defer { settings?.stop() }
        logger.info("showing location prompts of locd at \(configuration.socketPath) as notifications")
        perform(core.start())
        if let found = DesktopSources.detect(environment: configuration.environment) {
            desktop = DesktopLink(found: found, socketPath: configuration.socketPath, logger: logger)
        }
        // The desktop's source ends with the agent: KWin's script is unloaded (L18).
        defer { desktop = nil }
        while true {
            for signal in try bus.process() { perform(handle(signal)) }
            settings?.afterBus()
            readBuffered()
            if let retryAt, retryAt <= .now {
                self.retryAt = nil
                perform(core.retryDue())
                continue
            }
            if let watchRetryAt, watchRetryAt <= .now {
                self.watchRetryAt = nil
                perform(core.watchRetryDue())
                continue
            }
            if let desktop, let due = desktop.retryAt, due <= .now {
                desktop.retryDue()
                continue
            }
            guard try wait(bus: bus, signals: signals) else {
                logger.info("stopping")
                perform(core.stop())
                _ = try? bus.process()
                return
            }
        }
    }

    /// Hands the core what locd's streams already said: whole replies read before, waiting in their buffers.
    private func readBuffered() {
        while let stream, stream.hasBufferedReply { readStream(stream) }
        while let watch, watch.hasBufferedEvent { readWatch(watch.receiveEvents()) }
        while let watch, watch.hasBufferedStatus { readWatch(watch.receiveStatus()) }
        while let desktop, desktop.hasBufferedReply { desktop.reporterReady() }
    }

    /// Waits for the bus, a signal, locd's streams, the answers' replies or a timer, and reads locd's sockets that
    /// are ready, none of which waits (N3); `false` once SIGTERM or SIGINT came.
    private func wait(bus: SessionBus, signals: Int32) throws(AgentFailure) -> Bool {
        let (busPoll, busTimeout) = try bus.pollRequest()
        let answering = answers.fileDescriptors
        let desktopSockets = desktop?.descriptors ?? [nil, nil]
        let syncing = settings?.fileDescriptors ?? []
        let sockets =
            [stream?.fileDescriptor, watch?.streamDescriptor, watch?.statusDescriptor] + desktopSockets + answering
            + syncing
        var descriptors = [busPoll, pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
        for descriptor in sockets {
            descriptors.append(pollfd(fd: descriptor ?? -1, events: Int16(POLLIN), revents: 0))
        }
        _ = poll(&descriptors, nfds_t(descriptors.count), timeout(busTimeout))
        if descriptors[1].revents != 0 { return false }
        if descriptors[2].revents != 0, let stream { readStream(stream) }
        if descriptors[3].revents != 0, let watch { readWatch(watch.receiveEvents()) }
        if descriptors[4].revents != 0, let watch { readWatch(watch.receiveStatus()) }
        if descriptors[5].revents != 0 { desktop?.sourceReady() }
        if descriptors[6].revents != 0 { desktop?.reporterReady() }
        let ready = Set(zip(answering, descriptors[7...]).filter { $0.1.revents != 0 }.map(\.0))
        if !ready.isEmpty { readAnswers(ready) }
        let settingsReady = zip(syncing, descriptors[(7 + answering.count)...]).filter { $0.1.revents != 0 }.map(\.0)
        if !settingsReady.isEmpty { settings?.handle(ready: Set(settingsReady)) }
        return true
    }

    /// The poll timeout: the bus's own or a retry's, whichever is first.
    private func timeout(_ busMilliseconds: Int32) -> Int32 {
        var milliseconds = busMilliseconds
        for due in [retryAt, watchRetryAt, desktop?.retryAt, settings?.nextDue].compactMap(\.self) {
            let left = ContinuousClock.now.duration(to: due)
            let wait = Int32(
                clamping: max(
                    0,
                    left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
                )
            )
            milliseconds = milliseconds < 0 ? wait : min(milliseconds, wait)
        }
        return milliseconds
    }

    private func handle(_ signal: SessionBus.Signal) -> [AgentCore.Action] {
        switch signal {
        case .actionInvoked(let id, let key): core.actionInvoked(key, on: id)
        case .notificationClosed(let id): core.notificationClosed(id)
        case .serverChanged(owned: true, let replaced): core.serverAppeared(replacing: replaced)
        case .serverChanged(owned: false, _): core.serverVanished()
        case .trayChanged(let owned): core.trayKnown(present: owned)
        case .trayActivated: core.trayActivated()
        case .trayRegistered(let failure):
            [failure.map { .log(.warning, "the tray refused the location item: \($0)") } ?? .log(.debug, "in the tray")]
        case .desktopDialogChanged(let owned): core.desktopDialogChanged(present: owned)
        }
    }

    /// Hands what the event stream or `Status` said to the core.
    private func readWatch(_ replies: [UseWatch.Reply]) {
        for reply in replies {
            switch reply {
            case .event:
                perform(core.watchEvent())
            case .status(let using, let background):
                let directories = configuration.applicationDirectories
                let use = LocationUse(using: using, background: background) {
                    AppLook(appID: $0, directories: directories).name
                }
                perform(core.statusRead(use))
            case .ended(let reason):
                self.watch = nil
                perform(core.watchLost(reason))
                return
            }
        }
    }

    /// Hands the core the replies of the answers whose sockets are `ready`.
    private func readAnswers(_ ready: Set<Int32>) {
        for (prompt, outcome) in answers.receive(ready: ready) { perform(answered(prompt, outcome)) }
    }

    /// The core's event for how the answer to `prompt` ended.
    private func answered(_ prompt: String, _ outcome: AnswerCalls.Outcome) -> [AgentCore.Action] {
        switch outcome {
        case .taken: core.answerTaken(prompt)
        case .refused(let error): core.answerRefused(prompt, error: error)
        case .failed(let reason): core.answerFailed(prompt, reason: reason)
        }
    }

    private func readStream(_ stream: PromptStream) {
        for reply in stream.receive() {
            switch reply {
            case .prompt(let value):
                guard let prompt = Prompt(value) else {
                    logger.warning("locd sent a prompt without an id, app or kind; it is not shown")
                    continue
                }
                let app = AppLook(appID: prompt.appID, directories: configuration.applicationDirectories)
                perform(core.promptReceived(prompt, app: app))
            case .withdrawn(let id):
                perform(core.promptWithdrawn(id))
            case .ended(let reason):
                self.stream = nil
                perform(core.streamLost(reason))
                return
            }
        }
    }

    /// Carries out `actions`, and those that what they learn returns, in order.
    private func perform(_ actions: [AgentCore.Action]) {
        var queue = actions[...]
        while let action = queue.popFirst() { queue += carryOut(action) }
    }

    /// Carries out one action, by its concern.
    private func carryOut(_ action: AgentCore.Action) -> [AgentCore.Action] {
        guard let bus else { return [] }
        switch action {
        case .queryCapabilities, .queryDesktopDialog, .queryTray:
            return ask(action, bus)
        case .notify, .closeNotification, .notifyInUse:
            return show(action, bus)
        case .openStream, .closeStream, .scheduleRetry, .answer:
            return prompts(action)
        case .openWatch, .readStatus, .scheduleWatchRetry, .registerTray, .showTray:
            return indicate(action)
        case .log(let level, let message):
            switch level {
            case .debug: logger.debug("\(message)")
            case .info: logger.info("\(message)")
            case .warning: logger.warning("\(message)")
            }
            return []
        case .openTerminal:
            openTerminal("agent")
            return []
        case .openSettings:
            openTerminal("apps")
            return []
        }
    }

    /// What the session bus has: the notification server's capabilities, GNOME Shell, a tray.
    private func ask(_ action: AgentCore.Action, _ bus: SessionBus) -> [AgentCore.Action] {
        switch action {
        case .queryCapabilities: core.capabilitiesKnown(bus.capabilities())
        case .queryDesktopDialog: core.desktopDialogChanged(present: bus.hasOwner(SessionBus.desktopDialogName))
        case .queryTray: core.trayKnown(present: bus.hasOwner(TrayItem.watcherName))
        default: []
        }
    }

    /// Notifications shown and closed.
    private func show(_ action: AgentCore.Action, _ bus: SessionBus) -> [AgentCore.Action] {
        switch action {
        case .notify(let notification, let prompt):
            do {
                let id = try bus.notify(notification)
                logger.debug("notification \(id) shows \(prompt.map { "prompt \($0)" } ?? "the notice")")
                return core.notificationShown(id, for: prompt)
            } catch {
                logger.warning("cannot show the notification of prompt \(prompt ?? "notice"): \(error)")
                return []
            }
        case .notifyInUse(let notification):
            do {
                let id = try bus.notify(notification)
                logger.debug("notification \(id) shows the apps using location")
                return core.inUseNotificationShown(id)
            } catch {
                logger.warning("cannot show the notification of the apps using location: \(error)")
                return []
            }
        case .closeNotification(let id):
            bus.closeNotification(id)
            return []
        default:
            return []
        }
    }

    /// locd's prompt stream, and the answers sent without waiting (N3).
    private func prompts(_ action: AgentCore.Action) -> [AgentCore.Action] {
        switch action {
        case .openStream:
            do {
                stream = try PromptStream(socketPath: configuration.socketPath)
                logger.debug("prompt stream open")
                return []
            } catch {
                return core.streamLost("cannot reach locd at \(configuration.socketPath): \(error)")
            }
        case .closeStream:
            stream = nil
            retryAt = nil
            return []
        case .scheduleRetry(let seconds):
            retryAt = .now.advanced(by: .seconds(seconds))
            return []
        case .answer(let prompt, let answer, let accuracy):
            guard let outcome = answers.send(prompt: prompt, answer: answer, accuracy: accuracy) else {
                logger.debug("answer to prompt \(prompt) sent; locd's reply is read when it comes")
                return []
            }
            return answered(prompt, outcome)
        default:
            return []
        }
    }

    /// What uses location (N5): locd's event stream and `Status`, and the tray item.
    private func indicate(_ action: AgentCore.Action) -> [AgentCore.Action] {
        switch action {
        case .openWatch:
            do {
                watch = try UseWatch(socketPath: configuration.socketPath)
                logger.debug("event stream open")
                return core.watchOpened()
            } catch {
                return core.watchLost("cannot reach locd at \(configuration.socketPath): \(error)")
            }
        case .readStatus:
            guard let watch else { return [] }
            do {
                try watch.requestStatus()
                return []
            } catch {
                self.watch = nil
                return core.watchLost("cannot ask locd for its status: \(error)")
            }
        case .scheduleWatchRetry(let seconds):
            watchRetryAt = .now.advanced(by: .seconds(seconds))
            return []
        case .registerTray:
            do {
                try tray?.register()
            } catch {
                logger.warning("\(error)")
            }
            return []
        case .showTray(let look):
            tray?.show(look)
            logger.debug("location in use: \(look.status)")
            return []
        default:
            return []
        }
    }

    /// Starts `locctl COMMAND` in the desktop's terminal, and does not wait for it: `agent` to answer prompts (N4),
    /// `apps` for the settings (N5).
    private func openTerminal(_ subcommand: String) {
        let terminal = configuration.terminal
        guard !terminal.isEmpty else { return }
        let command = terminal + [configuration.locctl, subcommand, "--socket", configuration.socketPath]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        do {
            try process.run()
            logger.notice("opened a terminal for locctl \(subcommand): \(command.joined(separator: " "))")
        } catch {
            logger.warning("cannot open a terminal with \(command.joined(separator: " ")): \(error)")
        }
    }

    /// Blocks SIGTERM and SIGINT and returns a signalfd that reads them, so that the loop stops between events.
    private static func blockTerminationSignals() throws(AgentFailure) -> Int32 {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        sigprocmask(SIG_BLOCK, &set, nil)
        let descriptor = signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        guard descriptor >= 0 else { throw AgentFailure("cannot read signals", code: -errno) }
        return descriptor
    }
}

extension AgentShell {
    /// The `applications` directories of the XDG base directories, in the order they are searched.
    package static func applicationDirectories(environment: [String: String]) -> [String] {
        AppLook.applicationDirectories(environment: environment)
    }
}
