/// What the daemon tells its service manager about its life cycle.
///
/// The daemon's shell talks to this protocol, so tests and non-systemd runs can pass a fake or
/// ``SystemdNotifier`` (which is itself a no-op outside systemd). Each call returns whether a
/// message was delivered; callers normally ignore it.
package protocol ServiceManagerNotifier: Sendable {
    /// Start-up or a reload finished: the daemon is listening and serving (`READY=1`).
    @discardableResult func ready(status: String?) -> Bool

    /// A reload (SIGHUP, `Admin.Reload`) began; ``ready(status:)`` ends it (`RELOADING=1`).
    @discardableResult func reloading(status: String?) -> Bool

    /// A graceful stop began (`STOPPING=1`).
    @discardableResult func stopping() -> Bool

    /// A one-line, human-readable state for `systemctl status` (`STATUS=`).
    @discardableResult func status(_ text: String) -> Bool

    /// The daemon's main loop is alive (`WATCHDOG=1`).
    @discardableResult func watchdogPing() -> Bool
}
