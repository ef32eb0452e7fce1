import Foundation

/// A location fix, as `CLLocation` carries it; optional values are the ones the provider did not measure.
public struct Location: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Metres above sea level.
    public var altitude: Double?
    /// Radius in metres of the circle the true position is in (5000 for an approximate location).
    public var horizontalAccuracy: Double
    public var verticalAccuracy: Double?
    /// Metres per second.
    public var speed: Double?
    /// Degrees clockwise from true north.
    public var course: Double?
    public var timestamp: Date

    public init(
        latitude: Double,
        longitude: Double,
        altitude: Double? = nil,
        horizontalAccuracy: Double,
        verticalAccuracy: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        timestamp: Date
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }
}
