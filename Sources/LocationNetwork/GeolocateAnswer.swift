import JSON

/// A position the geolocation service answered, checked (U12): latitude, longitude and accuracy in range.
public struct GeolocateAnswer: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Metres.
    public var accuracy: Double
    /// Whether the service says it fell back on the IP address (ichnaea's `"fallback": "ipf"`).
    public var ipFallback: Bool

    public init(latitude: Double, longitude: Double, accuracy: Double, ipFallback: Bool = false) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.ipFallback = ipFallback
    }

    /// The largest accuracy taken, in metres: half the Earth's circumference. A larger one says nothing.
    public static let maximumAccuracy = 20_037_509.0

    /// Reads an answer with HTTP status `status` and body `body`, or says what is wrong with it.
    /// - Parameter retryAfter: the delay the answer's `Retry-After` asked for, in seconds (``RetryAfter``), if any.
    public static func decode(
        status: Int,
        body: [UInt8],
        retryAfter: Double? = nil
    ) -> Result<GeolocateAnswer, GeolocateFailure> {
        let value = JSONValue.parse(body)
        guard (200..<300).contains(status) else {
            let message = value?["error"]?["message"]?.stringValue.map { ": " + String($0.prefix(200)) } ?? ""
            let reasons = (value?["error"]?["errors"]?.arrayValue ?? []).prefix(16).compactMap {
                $0["reason"]?.stringValue
            }
            if status == 403, reasons.contains("dailyLimitExceeded") {
                return .failure(
                    .dailyLimitExceeded(
                        "the service's daily limit is reached (HTTP 403 dailyLimitExceeded\(message)): "
                            + "asking nothing more until the next UTC day"
                    )
                )
            }
            if status == 400, reasons.contains("keyInvalid") {
                return .failure(
                    .keyInvalid(
                        "the service refuses the API key (HTTP 400 keyInvalid\(message)): put a valid key in the url "
                            + "of locd's network provider (?key=…) and reload locd; nothing more is asked of this url "
                            + "until it changes or locd-network restarts"
                    )
                )
            }
            let wait = retryAfter.map { "; it asks to wait \(Int($0.rounded(.up))) s (Retry-After)" } ?? ""
            if status == 404 {
                return .failure(
                    .refused(
                        "the service knows no position for what was sent (HTTP 404\(message))\(wait)",
                        retryAfter: retryAfter
                    )
                )
            }
            return .failure(.refused("the service answered HTTP \(status)\(message)\(wait)", retryAfter: retryAfter))
        }
        guard let value else { return .failure(.badAnswer("the answer is not JSON")) }
        guard case .object = value else { return .failure(.badAnswer("the answer is not a JSON object")) }
        guard case .object(let location)? = value["location"] else {
            return .failure(.badAnswer("the answer has no \"location\" object"))
        }
        guard let latitude = location["lat"]?.doubleValue else {
            return .failure(.badAnswer("the answer's location has no number \"lat\""))
        }
        guard let longitude = location["lng"]?.doubleValue else {
            return .failure(.badAnswer("the answer's location has no number \"lng\""))
        }
        guard let accuracy = value["accuracy"]?.doubleValue else {
            return .failure(.badAnswer("the answer has no number \"accuracy\""))
        }
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            return .failure(.badAnswer("the answer's latitude \(latitude) is outside -90…90"))
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            return .failure(.badAnswer("the answer's longitude \(longitude) is outside -180…180"))
        }
        guard accuracy.isFinite, accuracy > 0, accuracy <= maximumAccuracy else {
            return .failure(
                .badAnswer("the answer's accuracy \(accuracy) is not between 0 and \(Int(maximumAccuracy)) m")
            )
        }
        let fallback = value["fallback"]?.stringValue == "ipf"
        return .success(
            GeolocateAnswer(latitude: latitude, longitude: longitude, accuracy: accuracy, ipFallback: fallback)
        )
    }
}
