import NIOCore
import ServiceLifecycle
import SystemdSupport

/// systemd's watchdog as a ``Service`` beside the daemon: sends `WATCHDOG=1` at half of `WATCHDOG_USEC`, each
/// time only after the event loop has run a task. A loop that hangs stops the pings, and systemd kills and
/// restarts the service. The first ping follows `READY=1`, as systemd watches a service once it has started.
package struct Watchdog: Service {
    private let eventLoop: any EventLoop
    private let interval: Duration
    private let ready: EventLoopFuture<Void>

    /// - Parameters:
    ///   - interval: `WATCHDOG_USEC`, ``Systemd/watchdogInterval()``.
    ///   - ready: the daemon's ``Daemon/ready``: no ping before it, none at all if start-up fails.
    package init(eventLoop: any EventLoop, interval: Duration, after ready: EventLoopFuture<Void>) {
        self.eventLoop = eventLoop
        self.interval = interval
        self.ready = ready
    }

    package func run() async throws {
        let notifier = SystemdNotifier()
        await cancelWhenGracefulShutdown {
            guard (try? await ready.get()) != nil else { return }
            while !Task.isCancelled {
                guard (try? await eventLoop.submit({}).get()) != nil else { return }
                notifier.watchdogPing()
                try? await Task.sleep(for: interval / 2)
            }
        }
    }
}
