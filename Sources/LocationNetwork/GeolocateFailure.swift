/// Why a request gave no position: the words of the `lost` reply's reason and of the log line (U11, U12).
public enum GeolocateFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The service could not be reached, or took too long.
    case unreachable(String)
    /// The service answered with an error status.
    case refused(String)
    /// The service answered what is not a position.
    case badAnswer(String)

    public var description: String {
        switch self {
        case .unreachable(let text), .refused(let text), .badAnswer(let text): text
        }
    }
}
