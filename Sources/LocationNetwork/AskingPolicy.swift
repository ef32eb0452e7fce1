/// When to ask the geolocation service (SEMANTICS U9, U11, U21, U24, U26): a pure schedule, given the time, what
/// would be sent and how old the list of access points is.
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
        /// The list is older than `interval`: ask the supplicant for a scan, and decide again once the list is read
        /// again or at this time, whichever comes first (U24).
        case scan(waitUntil: Double)
        /// The service refused the key: ask nothing, ever, in this schedule (U21).
        case stopped
    }

    public let interval: Double
    public let minimumInterval: Double
    /// When the last request started, if there was one.
    public private(set) var lastAsked: Double?
    /// The BSSIDs the last request carried, strongest first.
    public private(set) var lastSent: [String] = []
    /// Requests that failed in a row since the last answer with a position.
    public private(set) var failures = 0

    /// Nothing is asked before this time, which the service named (`Retry-After`, the next UTC day; U21).
    public private(set) var notBefore: Double?
    /// Whether the service refused the key (U21).
    public private(set) var keyRefused = false
    /// Whether connectivity returned since the last failure: the backoff no longer holds (U26).
    public private(set) var resumed = false
    /// When a scan was last asked for (U24).
    public private(set) var lastScan: Double?

    /// How many of the strongest access points count on their own for a material change.
    public static let strongest = 5
    /// How long to wait for a scan asked for before asking with the list as it is, in seconds (U24).
    public static let scanWait = 10.0

    public init(interval: Double, minimumInterval: Double) {
        self.interval = interval
        self.minimumInterval = minimumInterval
    }

    /// What to do at `now`, when a request would carry `sending` (BSSIDs, strongest first), the list having been
    /// last scanned at `scanned` (`nil`: not known, taken as fresh).
    public func decide(now: Double, sending: [String], considerIp: Bool, scanned: Double? = nil) -> Decision {
        if keyRefused { return .stopped }
        if sending.isEmpty && !considerIp { return .nothingToSend }
        var due = -Double.infinity
        if let lastAsked {
            let earliest = lastAsked + pause
            if failures > 0 || Self.materiallyChanged(from: lastSent, to: sending) {
                due = earliest
            } else {
                due = max(earliest, lastAsked + interval)
            }
        }
        if let notBefore { due = max(due, notBefore) }
        if now < due { return .wait(until: due) }
        if let scanned, now - scanned > interval {
            guard let lastScan, now - lastScan < interval else { return .scan(waitUntil: now + Self.scanWait) }
            if now < lastScan + Self.scanWait, scanned < lastScan { return .wait(until: lastScan + Self.scanWait) }
        }
        return .ask
    }

    /// The least time between two requests: `minimumInterval`, or after failures the backoff, which doubles from
    /// `minimumInterval` with each failure in a row up to `interval` (U11), unless connectivity returned (U26).
    public var pause: Double {
        guard failures > 0, !resumed else { return minimumInterval }
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
        resumed = false
    }

    /// The service named a time before which it is not to be asked (`Retry-After`, the next UTC day; U21).
    public mutating func wait(until time: Double) {
        notBefore = max(notBefore ?? time, time)
    }

    /// The service refused the key: nothing more is asked (U21).
    public mutating func refuseKey() {
        keyRefused = true
    }

    /// The machine is connected again: a backoff after failures no longer holds, the service's own waits do (U26).
    public mutating func connectivityReturned() {
        if failures > 0 { resumed = true }
    }

    /// A scan was asked for at `now` (U24).
    public mutating func scanRequested(at now: Double) {
        lastScan = now
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
