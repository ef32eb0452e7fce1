/// Why a request gave no position: the words of the `lost` reply's reason and of the log line (U11, U12, U21).
public enum GeolocateFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The service could not be reached, or took too long.
    case unreachable(String)
    /// The service answered with an error status; `retryAfter` is the delay its `Retry-After` asked for, in
    /// seconds from the answer, when it gave one (U21).
    case refused(String, retryAfter: Double? = nil)
    /// The service answered what is not a position.
    case badAnswer(String)
    /// HTTP 403 `dailyLimitExceeded`: nothing more until the next UTC day (U21).
    case dailyLimitExceeded(String)
    /// HTTP 400 `keyInvalid`: nothing more of this url (U21).
    case keyInvalid(String)

    public var description: String {
        switch self {
        case .unreachable(let text), .refused(let text, _), .badAnswer(let text), .dailyLimitExceeded(let text),
            .keyInvalid(let text):
            text
        }
    }
}
