import JSON

/// Strings written as JSON values in the expectations of these tests.
extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}
