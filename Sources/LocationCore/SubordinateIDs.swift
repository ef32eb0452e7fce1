/// The ranges of subordinate uids delegated to users, as `/etc/subuid` lists them for `newuidmap` (SEMANTICS H9):
/// every per-uid bound counts a delegated uid against the user it is delegated to.
package struct SubordinateIDs: Hashable, Codable, Sendable {
    /// `count` uids from `start`, delegated to the user `owner`.
    package struct Range: Hashable, Codable, Sendable {
        package var start: UInt32
        package var count: UInt32
        package var owner: UInt32

        package init(start: UInt32, count: UInt32, owner: UInt32) {
            self.start = start
            self.count = count
            self.owner = owner
        }

        func contains(_ uid: UInt32) -> Bool { uid >= start && uid - start < count }
    }

    /// In the file's order: where ranges overlap, the first has the uid.
    package private(set) var ranges: [Range]

    package init(_ ranges: [Range] = []) {
        self.ranges = ranges
    }

    /// The uid that `uid` counts as against the per-uid bounds: the user a range delegates it to, else itself.
    package func owner(of uid: UInt32) -> UInt32 {
        guard !ranges.isEmpty else { return uid }
        for range in ranges where range.contains(uid) { return range.owner }
        return uid
    }
}
