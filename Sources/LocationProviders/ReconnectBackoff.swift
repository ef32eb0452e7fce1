/// The pause before each reconnection attempt: doubling from `initial` up to `maximum`, back to `initial`
/// once a connection has worked.
///
/// A peer that accepts and closes at once (a socket proxy whose gpsd is down) does not count as working:
/// the provider resets only when gpsd has said hello.
package struct ReconnectBackoff: Equatable, Sendable {
    package let initial: Double
    package let maximum: Double
    private var upcoming: Double

    /// - Parameters:
    ///   - initial: the first pause, seconds.
    ///   - maximum: the longest pause, seconds.
    package init(initial: Double = 0.25, maximum: Double = 8) {
        self.initial = initial
        self.maximum = max(maximum, initial)
        self.upcoming = initial
    }

    /// The pause before the next attempt; each call doubles the one after it.
    package mutating func nextDelay() -> Double {
        let delay = upcoming
        upcoming = min(upcoming * 2, maximum)
        return delay
    }

    /// A connection worked: the next failure waits `initial` again.
    package mutating func reset() {
        upcoming = initial
    }
}
