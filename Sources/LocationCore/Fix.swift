/// A position reported by the location provider, in plain values: the `Location` of SEMANTICS U1.
package struct Fix: Hashable, Sendable {
    package var latitude: Double
    package var longitude: Double
    package var altitude: Double?
    /// Radius of uncertainty in metres.
    package var horizontalAccuracy: Double
    package var verticalAccuracy: Double?
    /// Metres per second.
    package var speed: Double?
    /// Degrees clockwise from true north.
    package var course: Double?
    /// Unix time in seconds, as the provider stamped the fix.
    package var timestamp: Double

    package init(
        latitude: Double,
        longitude: Double,
        altitude: Double? = nil,
        horizontalAccuracy: Double,
        verticalAccuracy: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        timestamp: Double
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
