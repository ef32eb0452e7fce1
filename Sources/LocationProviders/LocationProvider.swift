import LocationCore
import NIOCore

/// A source of fixes that the daemon starts while some session or stream needs location and stops when
/// none does (SEMANTICS U3).
///
/// Loop-bound: a provider is created for one event loop, and ``start(_:)``, ``stop()`` and every call of
/// the handler happen on that loop, so the daemon can hand what it hears straight to its core. A provider
/// calls the handler only between ``start(_:)`` and ``stop()``; a report already scheduled when it stops
/// is dropped, so the core never hears from a provider it stopped.
package protocol LocationProvider: AnyObject {
    /// The configuration's name of the kind: `static`, `nmea` or `gpsd`.
    var kind: String { get }
    /// Where the fixes come from, for status and logs: a point, a file, an address.
    var source: String { get }
    /// Where the provider is now.
    var state: ProviderState { get }
    /// Starts delivering fixes, fix losses and state changes to `handler`, on the provider's loop.
    func start(_ handler: @escaping (ProviderUpdate) -> Void)
    /// Stops at once: closes connections, cancels timers, and calls the handler no more.
    func stop()
}

/// What a provider tells the daemon.
package enum ProviderUpdate: Equatable, Sendable {
    /// A position (U1).
    case fix(Fix)
    /// No position now: no signal, gpsd mode < 2, or the source went away (D9); `reason` is for the log.
    case fixLost(reason: String)
    /// The provider's own state changed; `detail` says why (the error of a failed connection, for example).
    case state(ProviderState, detail: String?)
    /// Something to log that changes nothing: rejected NMEA lines, a gpsd `ERROR`, an unreadable gpsd line.
    case warning(String)
}

/// Where a provider is in its life; the raw values are the `state` of `Admin.Status`'s `ProviderStatus`.
package enum ProviderState: String, CaseIterable, Sendable {
    /// Not started, or stopped: nothing needs location.
    case stopped
    /// Started, and opening its source (connecting to gpsd, reading the file).
    case connecting
    /// Started, and reading its source.
    case running
    /// Started, but its source went away or refused it; it tries again after a pause.
    case retrying
    /// Started, but it cannot run until the configuration changes (an unreadable or empty NMEA file).
    case failed
}
