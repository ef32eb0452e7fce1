/// How much JSON one text may hold: nesting, keys per object and values in all (SEMANTICS F1).
///
/// A call's text is parsed with ``call``; replies, which the daemon builds and a client reads, with
/// ``document``, bounded in nesting only.
public struct JSONLimits: Sendable, Hashable {
    /// Objects and arrays inside one another, the outermost counting as one.
    public var maximumDepth: Int
    /// Keys of one object (a repeated key counts once).
    public var maximumKeys: Int
    /// Values of every kind in the whole text, objects and arrays included.
    public var maximumValues: Int

    public init(maximumDepth: Int, maximumKeys: Int, maximumValues: Int) {
        self.maximumDepth = maximumDepth
        self.maximumKeys = maximumKeys
        self.maximumValues = maximumValues
    }

    /// A text of any size, nested at most 512 deep: far beyond any reply, far short of the stack's end.
    public static let document = JSONLimits(maximumDepth: 512, maximumKeys: .max, maximumValues: .max)

    /// A call: the largest any method takes (`AddCondition`: a handful of values, nested three deep) many
    /// times over.
    public static let call = JSONLimits(maximumDepth: 32, maximumKeys: 256, maximumValues: 4096)
}
