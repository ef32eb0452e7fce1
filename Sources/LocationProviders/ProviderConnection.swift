import NIOCore

/// The connection a provider keeps to its source (gpsd, `locd-network`): opened on the turn of the loop after a
/// start, opened again after a pause that doubles from 0.25 s to 8 s (``ReconnectBackoff``) when it fails or
/// closes, closed at once by a stop. Every attempt has a generation of its own, which the provider's channel
/// handlers carry back with each callback: a callback of an earlier attempt, or of a stopped connection, is stale
/// (``isCurrent(_:)``).
///
/// Loop-bound, like its provider, which makes itself the ``owner`` once it is initialised.
package final class ProviderConnection {
    private let eventLoop: EventLoop
    private var backoff: ReconnectBackoff
    private var channel: Channel?
    private var retry: Scheduled<Void>?
    private var generation = 0

    /// The provider. Weak: a provider dropped without a stop (a test's) leaves its pending attempt nothing to call.
    package weak var owner: (any ProviderConnectionOwner)?

    package init(eventLoop: EventLoop, backoff: ReconnectBackoff) {
        self.eventLoop = eventLoop
        self.backoff = backoff
    }

    /// Whether a callback of `attempt` is of the connection in force.
    package func isCurrent(_ attempt: Int) -> Bool {
        generation == attempt
    }

    /// Connects on the next turn of the loop, the pauses starting short: the daemon is still carrying out the
    /// action that started the provider.
    package func start() {
        backoff.reset()
        let current = advance()
        eventLoop.assumeIsolated().execute { [self] in
            guard generation == current else { return }
            connect()
        }
    }

    /// Closes the connection and cancels a pending attempt: every callback of what went before is stale.
    package func stop() {
        advance()
        retry?.cancel()
        retry = nil
        channel?.close(promise: nil)
        channel = nil
    }

    /// Closes the connection and connects again after the next pause; returns the pause, in seconds.
    package func reconnectLater() -> Double {
        channel?.close(promise: nil)
        channel = nil
        let delay = backoff.nextDelay()
        let current = advance()
        retry = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { [self] in
            retry = nil
            guard generation == current else { return }
            connect()
        }
        return delay
    }

    /// The source answered as it should: the next pause starts short again.
    package func resetBackoff() {
        backoff.reset()
    }

    private func connect() {
        let attempt = advance()
        guard let owner else { return }
        owner.change(to: .connecting, detail: "connecting to \(owner.target)")
        owner.open(attempt).assumeIsolated().whenComplete { [self] result in
            switch result {
            case .success(let channel):
                guard generation == attempt else {
                    channel.close(promise: nil)
                    return
                }
                self.channel = channel
            case .failure(let error):
                guard generation == attempt, let owner = self.owner else { return }
                owner.scheduleRetry(after: "cannot connect to \(owner.target): \(error)")
            }
        }
    }

    /// Makes every callback of what went before stale; returns the new generation.
    @discardableResult
    private func advance() -> Int {
        generation += 1
        return generation
    }
}

/// A provider, as its ``ProviderConnection`` sees it.
package protocol ProviderConnectionOwner: AnyObject {
    /// What the connection reaches, for the provider's state: "gpsd at …", "locd-network at …".
    var target: String { get }
    /// Opens the connection of an attempt: the provider's bootstrap, whose handlers carry the attempt's generation.
    func open(_ attempt: Int) -> EventLoopFuture<Channel>
    /// The provider's state changes (to connecting, as each attempt begins).
    func change(to state: ProviderState, detail: String?)
    /// An attempt could not connect: the provider says why and tries again later.
    func scheduleRetry(after reason: String)
}
