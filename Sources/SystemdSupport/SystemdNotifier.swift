import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// Sends the service manager state changes through `sd_notify(3)`.
///
/// Every call sends one datagram to `$NOTIFY_SOCKET`. When the variable is unset (started by hand, by
/// a test, or as a `Type=simple` service) each call does nothing and returns `false`, so the daemon
/// calls them unconditionally. The variable is left in place: the daemon notifies for as long as it
/// runs, and `NotifyAccess=main` keeps children from speaking for it anyway.
package struct SystemdNotifier: ServiceManagerNotifier {
    package init() {}

    @discardableResult
    package func ready(status: String? = nil) -> Bool {
        send(["READY=1"] + Self.statusField(status))
    }

    /// Sends `RELOADING=1` with `MONOTONIC_USEC=` (now, on `CLOCK_MONOTONIC`).
    ///
    /// systemd 252 acts on `RELOADING=1` alone and ignores the timestamp; systemd 253 and later
    /// (`Type=notify-reload`) require it to tell this reload from an earlier one. Sending both works on
    /// either.
    @discardableResult
    package func reloading(status: String? = nil) -> Bool {
        send(["RELOADING=1", "MONOTONIC_USEC=\(Self.monotonicMicroseconds())"] + Self.statusField(status))
    }

    @discardableResult
    package func stopping() -> Bool {
        send(["STOPPING=1"])
    }

    @discardableResult
    package func status(_ text: String) -> Bool {
        send(Self.statusField(text))
    }

    /// Pings the watchdog; call it at half of ``Systemd/watchdogInterval()``.
    @discardableResult
    package func watchdogPing() -> Bool {
        send(["WATCHDOG=1"])
    }

    /// `sd_notify` answers 0 when `$NOTIFY_SOCKET` is unset and a negative errno when sending failed.
    private func send(_ assignments: [String]) -> Bool {
        sd_notify(0, assignments.joined(separator: "\n")) > 0
    }

    /// A `STATUS=` line; a newline inside the text would start another assignment (a status built from
    /// config or client input could otherwise say `READY=1`), so line breaks become spaces.
    private static func statusField(_ text: String?) -> [String] {
        guard let text else { return [] }
        let oneLine = String(text.map { $0.isNewline ? " " : $0 })
        return ["STATUS=\(oneLine)"]
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
