/// The positions a schedule was answered, by the set of access points asked with (SEMANTICS U25): a pure, bounded
/// table with a lifetime. Times are seconds on the caller's monotonic clock.
public struct AnswerCache: Sendable {
    /// The most answers kept; past it the oldest goes.
    public static let capacity = 64
    /// How long an answer is given again, in seconds.
    public static let lifetime = 3600.0

    private var entries: [Set<String>: (answer: GeolocateAnswer, at: Double)] = [:]

    public init() {}

    public var count: Int { entries.count }

    /// The answer kept for exactly these BSSIDs, if it is younger than ``lifetime``.
    public func answer(for bssids: [String], now: Double) -> GeolocateAnswer? {
        guard let entry = entries[Set(bssids)], now - entry.at < Self.lifetime, now >= entry.at else { return nil }
        return entry.answer
    }

    /// Keeps `answer` for these BSSIDs, unless it says nothing of them: no BSSID, or the service fell back on the
    /// IP address.
    public mutating func keep(_ answer: GeolocateAnswer, for bssids: [String], now: Double) {
        guard !bssids.isEmpty, !answer.ipFallback else { return }
        entries = entries.filter { now - $0.value.at < Self.lifetime }
        entries[Set(bssids)] = (answer, now)
        while entries.count > Self.capacity, let oldest = entries.min(by: { $0.value.at < $1.value.at })?.key {
            entries.removeValue(forKey: oldest)
        }
    }

}
