/// One NMEA 0183 sentence that carries a position, decoded: GGA or RMC, from any talker
/// (`$GP` GPS, `$GN` combined, `$GL`, `$GA`, `$BD`, …).
package enum NMEASentence: Equatable, Sendable {
    case gga(GGA)
    case rmc(RMC)

    /// Global positioning system fix data: position, fix quality, HDOP and altitude.
    package struct GGA: Equatable, Sendable {
        /// UTC seconds since midnight; `nil` when the receiver left it empty.
        package var secondsOfDay: Double?
        /// Degrees; `nil` without a fix.
        package var latitude: Double?
        package var longitude: Double?
        /// 0 = no fix, 1 = GPS, 2 = DGPS, 4/5 = RTK, 6 = dead reckoning, …
        package var quality: Int
        package var satellites: Int?
        package var hdop: Double?
        /// Metres above mean sea level.
        package var altitude: Double?

        /// Whether the sentence reports a position.
        package var hasFix: Bool { quality > 0 && latitude != nil && longitude != nil }
    }

    /// Recommended minimum data: position, validity, speed, course and the date.
    package struct RMC: Equatable, Sendable {
        package var secondsOfDay: Double?
        /// Status `A` (valid) rather than `V` (void: no fix).
        package var valid: Bool
        package var latitude: Double?
        package var longitude: Double?
        /// Metres per second (the sentence says knots).
        package var speed: Double?
        /// Degrees clockwise from true north.
        package var course: Double?
        /// The UTC date, when the sentence has one.
        package var date: Date?

        /// Whether the sentence reports a position.
        package var hasFix: Bool { valid && latitude != nil && longitude != nil }
    }

    /// A UTC calendar date, as RMC's `ddmmyy` gives it (years 1980–2079).
    package struct Date: Equatable, Sendable {
        package var year: Int
        package var month: Int
        package var day: Int
    }

    /// UTC seconds since midnight.
    package var secondsOfDay: Double? {
        switch self {
        case .gga(let gga): gga.secondsOfDay
        case .rmc(let rmc): rmc.secondsOfDay
        }
    }

    /// Whether the sentence reports a position; GGA quality 0 and RMC status `V` do not.
    package var hasFix: Bool {
        switch self {
        case .gga(let gga): gga.hasFix
        case .rmc(let rmc): rmc.hasFix
        }
    }
}
