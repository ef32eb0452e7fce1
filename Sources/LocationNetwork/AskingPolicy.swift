/// When to ask the geolocation service (SEMANTICS U9, U11): a pure schedule, given the time and what would be sent.
///
/// Times are seconds on any monotonic clock the caller picks; nothing here reads a clock. The caller asks
/// ``decide(now:sending:considerIp:)`` whenever the access points change, a request ends or a wait it was told
/// of is over, and tells the policy what it did with ``asked(at:sending:)``, ``answered(success:)`` and
/// ``noneInView()``.
public struct AskingPolicy: Sendable, Hashable {
    /// What to do now.
    public enum Decision: Sendable, Hashable {
        /// Ask the service now.
        case ask
        /// Ask nothing until this time, unless what would be sent changes first.
        case wait(until: Double)
        /// There is nothing to send (no access point, and considerIp is false): ask nothing; the watch has no fix.
        case nothingToSend
    }

    public let interval: Double
    public let minimumInterval: Double
    /// When the last request started, if there was one.
    public private(set) var lastAsked: Double?
    /// The BSSIDs the last request carried, strongest first.
    public private(set) var lastSent: [String] = []
    /// Requests that failed in a row since the last answer with a position.
    public private(set) var failures = 0

    /// How many of the strongest access points count on their own for a material change.
    public static let strongest = 5

    public init(interval: Double, minimumInterval: Double) {
        self.interval = interval
        self.minimumInterval = minimumInterval
    }

    /// What to do at `now`, when a request would carry `sending` (BSSIDs, strongest first).
    public func decide(now: Double, sending: [String], considerIp: Bool) -> Decision {
        if sending.isEmpty && !considerIp { return .nothingToSend }
        guard let lastAsked else { return .ask }
        let earliest = lastAsked + pause
        let due: Double
        if failures > 0 || Self.materiallyChanged(from: lastSent, to: sending) {
            due = earliest
        } else {
            due = max(earliest, lastAsked + interval)
        }
        return now >= due ? .ask : .wait(until: due)
    }

    /// The least time between two requests: `minimumInterval`, or after failures the backoff, which doubles from
    /// `minimumInterval` with each failure in a row up to `interval` (U11).
    public var pause: Double {
        guard failures > 0 else { return minimumInterval }
        var wait = minimumInterval
        for _ in 1..<min(failures, 64) where wait < interval { wait *= 2 }
        return min(wait, interval)
    }

    /// A request carrying `sending` started at `now`.
    public mutating func asked(at now: Double, sending: [String]) {
        lastAsked = now
        lastSent = sending
    }

    /// The request ended: with a position, or without one (unreachable, refused, a bad answer).
    public mutating func answered(success: Bool) {
        failures = success ? 0 : failures + 1
    }

    /// There was nothing to send: the next access points in view are a change, whatever was sent before.
    public mutating func noneInView() {
        lastSent = []
    }

    /// Whether going from sending `old` to sending `new` (each strongest first) is a material change (U9): one of
    /// them is empty and the other not; a BSSID among the ``strongest`` of either is missing from the other; or
    /// at least a third of all the BSSIDs of both are in only one of them. Signal strengths changing, and the
    /// order among the strongest changing, are not.
    public static func materiallyChanged(from old: [String], to new: [String]) -> Bool {
        if old.isEmpty != new.isEmpty { return true }
        let oldSet = Set(old)
        let newSet = Set(new)
        if new.prefix(strongest).contains(where: { !oldSet.contains($0) }) { return true }
        if old.prefix(strongest).contains(where: { !newSet.contains($0) }) { return true }
        let union = oldSet.union(newSet).count
        let differing = oldSet.symmetricDifference(newSet).count
        return union > 0 && differing * 3 >= union
    }
}
