import JSON
import Logging

/// The person's desktop, read and reported to locd (N7): the source's socket and the report's connection are polled
/// in the agent's loop; nothing here waits.
final class DesktopLink {
    /// The desktop's name, as the log and `locctl status` show it.
    let name: String
    private var source: (any DesktopSource)?
    private let reporter: DesktopReporter
    private let logger: Logger
    /// When to connect to locd again after it went, and how long the next wait is (N1's 1 s doubling to 60 s).
    private(set) var retryAt: ContinuousClock.Instant?
    private var retryDelay = 1
    private var toldLost = false

    /// Opens the desktop `found` names and reports what it shows; one that cannot be read is said once (N7).
    init(found: DesktopSources.Found, socketPath: String, logger: Logger) {
        name = found.name
        reporter = DesktopReporter(socketPath: socketPath)
        self.logger = logger
        do {
            source = try found.open()
            logger.info("reading \(found.name) to tell locd which apps are in front")
        } catch {
            failed(error)
        }
    }

    /// The sockets to poll: the desktop's, then locd's (`nil` where there is none).
    var descriptors: [Int32?] { [source?.descriptor, reporter.fileDescriptor] }

    /// Whether a whole reply of locd waits in the buffer.
    var hasBufferedReply: Bool { reporter.hasBufferedReply }

    /// The desktop said something: read it, and report a new picture.
    func sourceReady() {
        guard let source else { return }
        do {
            guard let picture = try source.readable() else { return }
            logger.debug("\(name): \(picture.windows.filter(\.focused).map { $0.appID ?? "?" }) focused")
            send([
                "desktop": .string(name), "front": FrontWindows.parameter(of: picture), "locked": .bool(picture.locked),
            ])
        } catch {
            failed(error)
        }
    }

    /// locd's connection is ready: a reply, or its end.
    func reporterReady() {
        switch reporter.receive() {
        case .quiet: break
        case .refused(let error): logger.warning("locd refused what \(name) shows: \(error)")
        case .lost(let reason): lost(reason)
        }
    }

    /// The retry's time came: connect to locd again and send the newest report.
    func retryDue() {
        retryAt = nil
        do {
            try reporter.flush()
            retryDelay = 1
            toldLost = false
            logger.info("telling locd again which apps \(name) shows in front")
        } catch {
            lost("cannot reach locd: \(error)")
        }
    }

    /// The desktop cannot be read (any more): said once, in the log and to locd (`locctl status`), and not polled.
    private func failed(_ failure: DesktopSourceFailure) {
        source = nil
        logger.warning("cannot read the desktop \(name): \(failure); apps' own word decides what is in front")
        send(["desktop": .string(name), "front": .array([]), "failure": .string(failure.description)])
    }

    private func send(_ parameters: JSONObject) {
        do {
            try reporter.report(parameters)
        } catch {
            lost("cannot reach locd: \(error)")
        }
    }

    private func lost(_ reason: String) {
        if !toldLost {
            logger.notice("cannot tell locd what \(name) shows: \(reason); trying again")
            toldLost = true
        }
        retryAt = .now.advanced(by: .seconds(retryDelay))
        retryDelay = min(retryDelay * 2, 60)
    }
}
