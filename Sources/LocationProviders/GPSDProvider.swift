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
package final class GPSDProvider: LocationProvider {
    package let kind = "gpsd"
    package private(set) var state = ProviderState.stopped
    package let endpoint: GPSDEndpoint
    /// Seconds without a report after which a fix is considered lost.
    package let staleAfter: Double
    private let eventLoop: EventLoop
    private let unixTime: @Sendable () -> Double
    private var backoff: ReconnectBackoff
    private var handler: ((ProviderUpdate) -> Void)?
    private var channel: Channel?
    private var retry: Scheduled<Void>?
    private var staleness: Scheduled<Void>?
    private var hasFix = false
    /// Counts starts, stops and connection attempts: a callback of an earlier one is dropped.
    private var generation = 0

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
        self.backoff = backoff
        self.staleAfter = staleAfter
        self.unixTime = unixTime
    }

    package var source: String { endpoint.description }

    package func start(_ handler: @escaping (ProviderUpdate) -> Void) {
        eventLoop.preconditionInEventLoop()
        guard state == .stopped else { return }
        self.handler = handler
        backoff.reset()
        let current = advance()
        // On the next turn of the loop: the daemon is still carrying out the action that started us.
        eventLoop.assumeIsolated().execute { [self] in
            guard generation == current else { return }
            connect()
        }
        state = .connecting
    }

    package func stop() {
        eventLoop.preconditionInEventLoop()
        advance()
        handler = nil
        state = .stopped
        hasFix = false
        retry?.cancel()
        retry = nil
        staleness?.cancel()
        staleness = nil
        channel?.close(promise: nil)
        channel = nil
    }

    /// Makes every callback of what went before stale; returns the new generation.
    @discardableResult
    private func advance() -> Int {
        generation += 1
        return generation
    }

    // MARK: Connecting

    private func connect() {
        let attempt = advance()
        change(to: .connecting, detail: "connecting to gpsd at \(endpoint)")
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
        let connecting: EventLoopFuture<Channel>
        switch endpoint {
        case .tcp(let host, let port): connecting = bootstrap.connect(host: host, port: port)
        case .unix(let path): connecting = bootstrap.connect(unixDomainSocketPath: path)
        }
        connecting.assumeIsolated().whenComplete { [self] result in
            switch result {
            case .success(let channel):
                guard generation == attempt else {
                    channel.close(promise: nil)
                    return
                }
                self.channel = channel
            case .failure(let error):
                guard generation == attempt else { return }
                scheduleRetry(after: "cannot connect to gpsd at \(endpoint): \(error)")
            }
        }
    }

    private func scheduleRetry(after reason: String) {
        channel = nil
        staleness?.cancel()
        staleness = nil
        if hasFix {
            hasFix = false
            handler?(.fixLost(reason: reason))
        }
        let delay = backoff.nextDelay()
        change(to: .retrying, detail: "\(reason); retrying in \(delay) s")
        let current = advance()
        retry = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { [self] in
            retry = nil
            guard generation == current else { return }
            connect()
        }
    }

    private func change(to state: ProviderState, detail: String?) {
        self.state = state
        handler?(.state(state, detail: detail))
    }

    // MARK: From the connection

    /// The connection of `attempt` is open: ask for reports.
    func connected(_ channel: Channel, attempt: Int) {
        guard generation == attempt else { return }
        var buffer = channel.allocator.buffer(capacity: Self.watchCommand.utf8.count)
        buffer.writeString(Self.watchCommand)
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Messages read on the connection of `attempt`.
    func received(_ messages: [GPSDMessage], attempt: Int) {
        for message in messages {
            guard generation == attempt else { return }
            switch message {
            case .version(let release, _, _):
                backoff.reset()
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
        guard generation == attempt else { return }
        handler?(.warning("gpsd at \(endpoint) sent \(count) unreadable lines; skipped"))
    }

    /// The connection of `attempt` closed.
    func disconnected(attempt: Int, error: Error?) {
        guard generation == attempt else { return }
        let reason = error.map { "lost the connection to gpsd at \(endpoint): \($0)" }
        scheduleRetry(after: reason ?? "gpsd at \(endpoint) closed the connection")
    }

    /// Loses the fix if no report arrives within ``staleAfter`` seconds.
    private func watchForSilence(attempt: Int) {
        staleness?.cancel()
        staleness = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(staleAfter * 1e9))) {
            [self] in
            staleness = nil
            guard generation == attempt, hasFix else { return }
            hasFix = false
            handler?(.fixLost(reason: "no report from gpsd at \(endpoint) for \(staleAfter) s"))
        }
    }
}
