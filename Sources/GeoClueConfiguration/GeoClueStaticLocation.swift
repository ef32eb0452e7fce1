/// GeoClue's static location, `/etc/geolocation` (SEMANTICS G30): latitude, longitude, altitude and accuracy
/// (metres), one number a line, `#` starting a comment; latitude and longitude are required.
package struct GeoClueStaticLocation: Hashable, Sendable {
    package var latitude: Double
    package var longitude: Double
    package var altitude: Double?
    package var accuracy: Double?

    package init(latitude: Double, longitude: Double, altitude: Double? = nil, accuracy: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
    }

    private static let names = ["latitude", "longitude", "altitude", "accuracy"]

    /// Reads `file` (at most ``GeoClueKeyFile/maximumFileBytes``).
    package static func load(_ file: String) throws(GeoClueIssue) -> GeoClueStaticLocation {
        try parse(text: GeoClueKeyFile.read(file), file: file)
    }

    /// The point of `text`; each error names the line and the number it should hold.
    package static func parse(text: String, file: String) throws(GeoClueIssue) -> GeoClueStaticLocation {
        var numbers: [Double] = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let content = raw.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            if content.isEmpty { continue }
            guard numbers.count < names.count else {
                let message = "a fifth number: the file holds latitude, longitude, altitude and accuracy, one a line"
                throw GeoClueIssue(file: file, line: number, key: nil, message: message)
            }
            let name = names[numbers.count]
            guard let value = Double(content), value.isFinite else {
                throw GeoClueIssue(
                    file: file,
                    line: number,
                    key: name,
                    message: "expected a number (the \(name)), found \"\(content)\""
                )
            }
            let allowed: ClosedRange<Double>? =
                switch name {
                case "latitude": -90...90
                case "longitude": -180...180
                case "accuracy": 0...Double.greatestFiniteMagnitude
                default: nil
                }
            if let allowed, !allowed.contains(value) {
                let range =
                    name == "accuracy"
                    ? "a number of metres >= 0" : "degrees in [\(allowed.lowerBound), \(allowed.upperBound)]"
                throw GeoClueIssue(file: file, line: number, key: name, message: "expected \(range), found \(content)")
            }
            numbers.append(value)
        }
        guard numbers.count >= 2 else {
            let missing = names[numbers.count]
            let message = "no \(missing): the file holds latitude and longitude, then altitude and accuracy, one a line"
            throw GeoClueIssue(file: file, line: nil, key: missing, message: message)
        }
        return GeoClueStaticLocation(
            latitude: numbers[0],
            longitude: numbers[1],
            altitude: numbers.count > 2 ? numbers[2] : nil,
            accuracy: numbers.count > 3 ? numbers[3] : nil
        )
    }
}
