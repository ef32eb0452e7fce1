/// Whether the provider's fixes show no movement (SEMANTICS D10): none beyond 10 m for 60 s.
///
/// The first fix sets an anchor; a fix within 10 m of it keeps it, a fix farther away moves it (and ends
/// stationary). Stationary starts 60 s after the anchor was set, by the instants of the events rather than
/// the fixes' own timestamps, so a receiver with a wrong clock cannot hold it off; a deadline at that
/// instant makes it start even when the provider goes quiet in between. Losing the fix forgets the anchor:
/// nothing is known about movement without fixes.
struct StationaryDetector {
    /// Movement up to this far from the anchor, metres, is receiver jitter, not movement.
    static let radius = 10.0
    /// How long the fixes must stay within ``radius`` of the anchor.
    static let dwell = Span.seconds(60)

    private var anchor: (latitude: Double, longitude: Double, at: Instant)?
    private(set) var isStationary = false

    /// When stationary starts if nothing moves, or `nil` when it has started or there is no anchor.
    var deadline: Instant? {
        guard !isStationary, let anchor else { return nil }
        return anchor.at.adding(Self.dwell)
    }

    /// Takes a fix at `now`; returns whether ``isStationary`` changed.
    mutating func observe(_ fix: Fix, at now: Instant) -> Bool {
        if let anchor {
            let moved = Geodesy.distance(
                latitude: anchor.latitude,
                longitude: anchor.longitude,
                toLatitude: fix.latitude,
                longitude: fix.longitude
            )
            if moved <= Self.radius { return settle(at: now) }
        }
        anchor = (fix.latitude, fix.longitude, now)
        return set(false)
    }

    /// Re-checks the dwell at `now`; returns whether ``isStationary`` changed.
    mutating func settle(at now: Instant) -> Bool {
        guard let deadline, now >= deadline else { return false }
        return set(true)
    }

    /// The fix was lost; returns whether ``isStationary`` changed.
    mutating func reset() -> Bool {
        anchor = nil
        return set(false)
    }

    private mutating func set(_ stationary: Bool) -> Bool {
        guard stationary != isStationary else { return false }
        isStationary = stationary
        return true
    }
}
