import NIOCore
import ServiceLifecycle
import SystemdSupport

/// systemd's watchdog as a ``Service`` beside the daemon: sends `WATCHDOG=1` at half of `WATCHDOG_USEC`, each
/// time only after the event loop has run a task. A loop that hangs stops the pings, and systemd kills and
/// restarts the service.
package struct Watchdog: Service {
    private let eventLoop: any EventLoop
    private let interval: Duration

    /// - Parameter interval: `WATCHDOG_USEC`, ``Systemd/watchdogInterval()``.
    package init(eventLoop: any EventLoop, interval: Duration) {
        self.eventLoop = eventLoop
        self.interval = interval
    }

    package func run() async throws {
        let notifier = SystemdNotifier()
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                guard (try? await eventLoop.submit({}).get()) != nil else { return }
                notifier.watchdogPing()
                try? await Task.sleep(for: interval / 2)
            }
        }
    }
}
