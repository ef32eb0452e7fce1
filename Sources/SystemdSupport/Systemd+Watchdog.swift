import CSystemd

extension Systemd {
    /// The watchdog interval systemd set for this process (`WatchdogSec=`), or `nil` when it is off.
    ///
    /// This is the full `WATCHDOG_USEC` interval, the time after which systemd kills the service if no
    /// `WATCHDOG=1` arrived. Ping at **half** of it (``SystemdNotifier/watchdogPing()``), as
    /// `sd_watchdog_enabled(3)` advises, so that one late tick is not fatal. `WATCHDOG_PID`, when set,
    /// must name this process; a forked child therefore sees `nil`. The variables stay set.
    package static func watchdogInterval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(microseconds)
    }
}
