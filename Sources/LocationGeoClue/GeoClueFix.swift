import Foundation
import LocationClient

/// The eight properties of a GeoClue2 Location object, with GeoClue's sentinels for what the fix lacks.
struct GeoClueFix: Sendable, Equatable {
    var latitude: Double
    var longitude: Double
    /// Metres.
    var accuracy: Double
    /// Metres; `-Double.greatestFiniteMagnitude` (GeoClue's -G_MAXDOUBLE) when unknown.
    var altitude: Double
    /// Metres per second; -1 when unknown.
    var speed: Double
    /// Degrees from north; -1 when unknown.
    var heading: Double
    var description: String
    var seconds: UInt64
    var microseconds: UInt64

    static let unknownAltitude = -Double.greatestFiniteMagnitude

    init(_ location: Location) {
        latitude = location.latitude
        longitude = location.longitude
        accuracy = location.horizontalAccuracy
        altitude = location.altitude ?? Self.unknownAltitude
        speed = location.speed.map { $0 >= 0 ? $0 : -1 } ?? -1
        heading = location.course.map { $0 >= 0 ? $0 : -1 } ?? -1
        description = location.horizontalAccuracy >= 5000 ? "locd (approximate)" : "locd"
        let time = max(0, location.timestamp.timeIntervalSince1970)
        seconds = UInt64(time)
        microseconds = UInt64((time - Double(seconds)) * 1_000_000)
    }

    /// The time of the fix in seconds since 1970.
    var time: Double { Double(seconds) + Double(microseconds) / 1_000_000 }

    /// Great-circle distance in metres (haversine on a sphere of the Earth's mean radius).
    func distance(to other: GeoClueFix) -> Double {
        let radians = Double.pi / 180
        let deltaLatitude = (other.latitude - latitude) * radians
        let deltaLongitude = (other.longitude - longitude) * radians
        let a =
            sin(deltaLatitude / 2) * sin(deltaLatitude / 2) + cos(latitude * radians) * cos(other.latitude * radians)
            * sin(deltaLongitude / 2) * sin(deltaLongitude / 2)
        return 6_371_008.8 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    /// GeoClue's threshold rule: a new fix closer than `distance` metres to the last one delivered, or less than
    /// `time` seconds after it, updates nothing.
    func isBelowThreshold(after last: GeoClueFix, distance: UInt32, time: UInt32) -> Bool {
        (distance > 0 && self.distance(to: last) < Double(distance))
            || (time > 0 && self.time - last.time < Double(time))
    }
}
