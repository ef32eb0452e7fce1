/// Why a text is not a JSON value ``JSONLimits`` lets through.
public enum JSONParseError: Error, Sendable, Hashable {
    /// Not JSON at all.
    case invalid
    /// Nested deeper than the limit.
    case tooDeep(maximum: Int)
    /// An object with more keys than the limit.
    case tooManyKeys(maximum: Int)
    /// More values in all than the limit.
    case tooManyValues(maximum: Int)
}
