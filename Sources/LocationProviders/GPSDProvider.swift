import JSON
import LocationCore
import NIOCore
import NIOPosix

/// The `gpsd` provider: a client of gpsd's JSON protocol over TCP or a Unix socket (U3).
///
/// On connecting it sends `?WATCH={"enable":true,"json":true};` and turns each `TPV` report into a fix,
/// or a loss of fix when `mode` < 2. When the connection fails or closes it reports the fix lost (D9) and
/// tries again after a pause that doubles from 0.25 s to 8 s, back to 0.25 s once gpsd has greeted it. A
/// gpsd that goes quiet while the provider has a fix (its receiver unplugged) loses the fix after
/// ``staleAfter`` seconds.
package final class GPSDProvider: LocationProvider, ProviderConnectionOwner {
    package let kind = "gpsd"
    package private(set) var state = ProviderState.stopped
    package let endpoint: GPSDEndpoint
    /// Seconds without a report after which a fix is considered lost.
    package let staleAfter: Double
    private let eventLoop: EventLoop
    private let unixTime: @Sendable () -> Double
    private let connection: ProviderConnection
    private var handler: ((ProviderUpdate) -> Void)?
    private var staleness: Scheduled<Void>?
    private var hasFix = false

    /// The command that asks gpsd to stream JSON reports.
    package static let watchCommand = #"?WATCH={"enable":true,"json":true};"# + "\n"

    /// A provider of the `[provider]` keys `host` and `port`, or `socket`.
    /// - Parameters:
    ///   - backoff: the pauses between connection attempts.
    ///   - staleAfter: seconds of silence after which a fix is lost.
    ///   - unixTime: the stamp of a report that has no `time`.
    package init(
        endpoint: GPSDEndpoint,
        eventLoop: EventLoop,
        backoff: ReconnectBackoff = ReconnectBackoff(),
        staleAfter: Double = 10,
        unixTime: @escaping @Sendable () -> Double = UnixTime.now
    ) {
        self.endpoint = endpoint
        self.eventLoop = eventLoop
        self.connection = ProviderConnection(eventLoop: eventLoop, backoff: backoff)
        self.staleAfter = staleAfter
        self.unixTime = unixTime
        connection.owner = self
    }

    package var target: String { "gpsd at \(endpoint)" }

    package var source: String { endpoint.description }

    package func start(_ handler: @escaping (ProviderUpdate) -> Void) {
        eventLoop.preconditionInEventLoop()
        guard state == .stopped else { return }
        self.handler = handler
        connection.start()
        state = .connecting
    }

    package func stop() {
        eventLoop.preconditionInEventLoop()
        connection.stop()
        handler = nil
        state = .stopped
        hasFix = false
        staleness?.cancel()
        staleness = nil
    }

    // MARK: Connecting

    /// Opens the connection of `attempt` to gpsd.
    package func open(_ attempt: Int) -> EventLoopFuture<Channel> {
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        GPSDClientHandler(provider: bound.value, generation: attempt)
                    )
                }
            }
        switch endpoint {
        case .tcp(let host, let port): return bootstrap.connect(host: host, port: port)
        case .unix(let path): return bootstrap.connect(unixDomainSocketPath: path)
        }
    }

    package func scheduleRetry(after reason: String) {
        staleness?.cancel()
        staleness = nil
        if hasFix {
            hasFix = false
            handler?(.fixLost(reason: reason))
        }
        let delay = connection.reconnectLater()
        change(to: .retrying, detail: "\(reason); retrying in \(delay) s")
    }

    package func change(to state: ProviderState, detail: String?) {
        self.state = state
        handler?(.state(state, detail: detail))
    }

    // MARK: From the connection

    /// The connection of `attempt` is open: ask for reports.
    func connected(_ channel: Channel, attempt: Int) {
        guard connection.isCurrent(attempt) else { return }
        var buffer = channel.allocator.buffer(capacity: Self.watchCommand.utf8.count)
        buffer.writeString(Self.watchCommand)
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Messages read on the connection of `attempt`.
    func received(_ messages: [GPSDMessage], attempt: Int) {
        for message in messages {
            guard connection.isCurrent(attempt) else { return }
            switch message {
            case .version(let release, _, _):
                connection.resetBackoff()
                change(to: .running, detail: "connected to gpsd \(release) at \(endpoint)")
            case .tpv(let report):
                if state != .running { change(to: .running, detail: "reading gpsd at \(endpoint)") }
                watchForSilence(attempt: attempt)
                if let fix = report.fix(receivedAt: unixTime()) {
                    hasFix = true
                    handler?(.fix(fix))
                } else {
                    hasFix = false
                    handler?(.fixLost(reason: "gpsd reports mode \(report.mode): no fix"))
                }
            case .error(let text):
                handler?(.warning("gpsd at \(endpoint) answered with an error: \(text)"))
            case .devices(let paths) where paths.isEmpty:
                handler?(.warning("gpsd at \(endpoint) has no device yet; waiting for one"))
            case .devices, .watch, .sky:
                break
            }
        }
    }

    /// Lines of the connection of `attempt` that were not gpsd JSON.
    func receivedMalformed(count: Int, attempt: Int) {
        guard connection.isCurrent(attempt) else { return }
        handler?(.warning("gpsd at \(endpoint) sent \(count) unreadable lines; skipped"))
    }

    /// The connection of `attempt` closed.
    func disconnected(attempt: Int, error: Error?) {
        guard connection.isCurrent(attempt) else { return }
        let reason = error.map { "lost the connection to gpsd at \(endpoint): \($0)" }
        scheduleRetry(after: reason ?? "gpsd at \(endpoint) closed the connection")
    }

    /// Loses the fix if no report arrives within ``staleAfter`` seconds.
    private func watchForSilence(attempt: Int) {
        staleness?.cancel()
        staleness = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(staleAfter * 1e9))) {
            [self] in
            staleness = nil
            guard connection.isCurrent(attempt), hasFix else { return }
            hasFix = false
            handler?(.fixLost(reason: "no report from gpsd at \(endpoint) for \(staleAfter) s"))
        }
    }
}
