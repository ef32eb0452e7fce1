import LocationCore
import NIOCore

/// The `static` provider: one fixed point, reported once each time it starts (U3).
///
/// Reporting the point once is enough: the core keeps the newest fix, and a stream opened later is sent
/// the current one at once (U1).
package final class StaticProvider: LocationProvider {
    package let kind = "static"
    package private(set) var state = ProviderState.stopped
    private let latitude: Double
    private let longitude: Double
    private let altitude: Double?
    private let accuracy: Double
    private let eventLoop: EventLoop
    private let unixTime: @Sendable () -> Double
    /// Counts starts, so that a report scheduled by an earlier start is dropped.
    private var generation = 0
    private var handler: ((ProviderUpdate) -> Void)?

    /// A provider of the `[provider]` keys `latitude`, `longitude`, `altitude` and `accuracy`.
    /// - Parameters:
    ///   - accuracy: the horizontal accuracy reported, metres.
    ///   - unixTime: the wall clock that stamps the fix (tests pass a fixed one).
    package init(
        latitude: Double,
        longitude: Double,
        altitude: Double?,
        accuracy: Double,
        eventLoop: EventLoop,
        unixTime: @escaping @Sendable () -> Double = UnixTime.now
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
        self.eventLoop = eventLoop
        self.unixTime = unixTime
    }

    package var source: String { "\(latitude), \(longitude)" }

    package func start(_ handler: @escaping (ProviderUpdate) -> Void) {
        eventLoop.preconditionInEventLoop()
        guard state == .stopped else { return }
        generation += 1
        let current = generation
        self.handler = handler
        state = .running
        // On the next turn of the loop: the daemon is still carrying out the action that started us.
        eventLoop.assumeIsolated().execute { [self] in
            guard generation == current, state == .running else { return }
            self.handler?(.state(.running, detail: nil))
            let fix = Fix(
                latitude: latitude,
                longitude: longitude,
                altitude: altitude,
                horizontalAccuracy: accuracy,
                timestamp: unixTime()
            )
            self.handler?(.fix(fix))
        }
    }

    package func stop() {
        eventLoop.preconditionInEventLoop()
        generation += 1
        state = .stopped
        handler = nil
    }
}
