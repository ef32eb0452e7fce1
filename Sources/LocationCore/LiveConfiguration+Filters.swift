// The distance and time filters each `LiveUpdates` configuration sets (SEMANTICS U1).
//
// | configuration          | distance filter | heartbeat | why                                                  |
// |------------------------|-----------------|-----------|------------------------------------------------------|
// | `default`              | none            | —         | Core Location's default (`kCLDistanceFilterNone`)     |
// | `automotiveNavigation` | none            | —         | turn-by-turn needs every fix, even at a standstill   |
// | `otherNavigation`      | 5 m             | 10 s      | walking or cycling guidance: a step is not news      |
// | `fitness`              | 2 m             | 5 s       | a track fine enough for a running route, not jitter  |
// | `airborne`             | none            | —         | fast and climbing: every fix moves far, or up        |
//
// A full-accuracy fix goes out when it is the stream's first location, when it lies at least the distance
// filter away from the last location the stream was sent, or when the heartbeat has passed since then (so a
// slow walker still hears from the stream). Reduced-accuracy streams skip these filters: their throttle of
// one location per 15 minutes (U2) is far coarser.
extension LiveConfiguration {
    /// The least distance in metres from the last sent location for a new fix to be sent (0: every fix).
    package var distanceFilter: Double {
        switch self {
        case .standard, .automotiveNavigation, .airborne: 0
        case .otherNavigation: 5
        case .fitness: 2
        }
    }

    /// After this long since the last sent location, a fix is sent however little it moved.
    package var heartbeat: Span? {
        switch self {
        case .standard, .automotiveNavigation, .airborne: nil
        case .otherNavigation: .seconds(10)
        case .fitness: .seconds(5)
        }
    }

    /// Whether `fix` passes the filters, `elapsed` after `last` was sent.
    func admits(_ fix: Fix, after last: Fix, elapsed: Span) -> Bool {
        if distanceFilter == 0 { return true }
        if let heartbeat, elapsed >= heartbeat { return true }
        let moved = Geodesy.distance(
            latitude: last.latitude,
            longitude: last.longitude,
            toLatitude: fix.latitude,
            longitude: fix.longitude
        )
        return moved >= distanceFilter
    }
}
