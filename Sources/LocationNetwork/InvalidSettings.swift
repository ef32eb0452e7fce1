/// `io.locd.NetworkLocation.InvalidSettings`: which field of the settings is wrong, and what to do about it.
public struct InvalidSettings: Error, Sendable, Hashable {
    public var field: String
    public var reason: String

    public init(_ field: String, _ reason: String) {
        self.field = field
        self.reason = reason
    }
}
