import LocationCore

/// One object of gpsd's JSON protocol that the provider reads; other classes are ignored.
package enum GPSDMessage: Equatable, Sendable {
    /// The greeting on connect.
    case version(release: String, protocolMajor: Int, protocolMinor: Int)
    /// The devices gpsd reads, by path.
    case devices([String])
    /// The answer to `?WATCH`: whether reports are now streamed.
    case watch(enabled: Bool)
    /// A time-position-velocity report.
    case tpv(GPSDReport)
    /// The satellites in view: counted, with the horizontal dilution of precision.
    case sky(visible: Int?, used: Int?, hdop: Double?)
    /// gpsd refused a request.
    case error(String)
}

/// A `TPV` object: gpsd's fix, or the news that there is none (`mode` 0 or 1).
package struct GPSDReport: Equatable, Sendable {
    /// 0 unknown, 1 no fix, 2 two-dimensional, 3 three-dimensional.
    package var mode: Int
    /// Unix seconds, from `time`; `nil` when gpsd does not know the time yet.
    package var time: Double?
    package var latitude: Double?
    package var longitude: Double?
    /// Metres above mean sea level: `altMSL`, else the older `alt`, else `altHAE` (above the ellipsoid).
    package var altitude: Double?
    /// Metres: `eph` (horizontal position error), `epx`/`epy` (longitude and latitude errors), `epv`.
    package var eph: Double?
    package var epx: Double?
    package var epy: Double?
    package var epv: Double?
    /// Metres per second.
    package var speed: Double?
    /// Degrees clockwise from true north.
    package var track: Double?

    package init(
        mode: Int,
        time: Double? = nil,
        latitude: Double? = nil,
        longitude: Double? = nil,
        altitude: Double? = nil,
        eph: Double? = nil,
        epx: Double? = nil,
        epy: Double? = nil,
        epv: Double? = nil,
        speed: Double? = nil,
        track: Double? = nil
    ) {
        self.mode = mode
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.eph = eph
        self.epx = epx
        self.epy = epy
        self.epv = epv
        self.speed = speed
        self.track = track
    }

    /// The accuracy of a report with no error estimate at all: wide, so nothing relies on it.
    package static let accuracyWithoutEstimate = 50.0

    /// The report as a ``Fix``, or `nil` when it has none: `mode` < 2 or no position.
    ///
    /// The horizontal accuracy is `eph`, else the larger of `epx` and `epy`; altitude and vertical accuracy
    /// count only in a three-dimensional fix.
    /// - Parameter receivedAt: the stamp for a report without `time`.
    package func fix(receivedAt: Double) -> Fix? {
        guard mode >= 2, let latitude, let longitude else { return nil }
        let threeDimensional = mode >= 3
        let horizontal = eph ?? [epx, epy].compactMap { $0 }.max() ?? Self.accuracyWithoutEstimate
        return Fix(
            latitude: latitude,
            longitude: longitude,
            altitude: threeDimensional ? altitude : nil,
            horizontalAccuracy: horizontal,
            verticalAccuracy: threeDimensional ? epv : nil,
            speed: speed,
            course: track,
            timestamp: time ?? receivedAt
        )
    }
}
