/// How a ``LocationClient`` reconnects when the daemon goes away (a restart, a crash, a socket-activated stop).
///
/// Delays start at ``initialDelay`` and double up to ``maximumDelay``, each scaled by a random factor in
/// 0.5–1.0 so that many clients of a restarted daemon do not knock at the same instant. After ``giveUpAfter``
/// without a connection the client fails with ``LocationClientError/daemonUnavailable(socketPath:reason:)``.
/// Sessions survive only while the daemon's `relaunch-window` (default 10 s) is open, so waiting much longer
/// than that recovers the connection but not the sessions.
public struct ReconnectPolicy: Sendable, Hashable {
    public var initialDelay: Duration
    public var maximumDelay: Duration
    public var giveUpAfter: Duration

    public init(
        initialDelay: Duration = .milliseconds(50),
        maximumDelay: Duration = .seconds(2),
        giveUpAfter: Duration = .seconds(30)
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.giveUpAfter = giveUpAfter
    }

    /// 50 ms doubling to 2 s, giving up after 30 s.
    public static let `default` = ReconnectPolicy()

    /// The delay after `delay`: doubled, at most ``maximumDelay``.
    func next(after delay: Duration) -> Duration {
        min(delay * 2, maximumDelay)
    }

    /// `delay` scaled by a random factor in 0.5–1.0.
    func jittered(_ delay: Duration) -> Duration {
        delay * Double.random(in: 0.5...1.0)
    }
}
