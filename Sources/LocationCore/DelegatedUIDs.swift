/// The uids that subordinate ranges (`/etc/subuid`) delegate to users, as the per-uid bounds read them (SEMANTICS H9):
/// a delegated uid counts as the user it is delegated to, unless it has an account of its own.
///
/// A sorted table of disjoint intervals, which the shell builds from the file's ranges (deciding, where ranges
/// overlap, whose a uid is): a lookup is a binary search, so a file of a million lines costs nothing measurable per
/// connection. The core reads no file: it is given the table, and told of the accounts the shell finds.
package struct DelegatedUIDs: Hashable, Codable, Sendable {
    /// The uids `first` through `last`, delegated to the user `owner`.
    package struct Interval: Hashable, Codable, Sendable {
        package var first: UInt32
        package var last: UInt32
        package var owner: UInt32

        package init(first: UInt32, last: UInt32, owner: UInt32) {
            self.first = first
            self.last = last
            self.owner = owner
        }
    }

    /// The first uid of each interval, ascending; the intervals are disjoint.
    private var firsts: [UInt32] = []
    /// The last uid of each interval.
    private var lasts: [UInt32] = []
    /// The user each interval is delegated to.
    private var owners: [UInt32] = []
    /// Delegated uids that have an account of their own, and so count as themselves (H9).
    package private(set) var accounts: Set<UInt32> = []

    /// The table of `intervals`, given in ascending order and disjoint; one that is empty, out of order or overlaps
    /// the one before is left out. Of `accounts`, the delegated uids are kept.
    package init(_ intervals: [Interval] = [], accounts: Set<UInt32> = []) {
        firsts.reserveCapacity(intervals.count)
        lasts.reserveCapacity(intervals.count)
        owners.reserveCapacity(intervals.count)
        for interval in intervals where interval.first <= interval.last {
            if let previous = lasts.last, previous >= interval.first { continue }
            firsts.append(interval.first)
            lasts.append(interval.last)
            owners.append(interval.owner)
        }
        self.accounts = accounts.filter { index(of: $0) != nil }
    }

    /// Whether no uid is delegated.
    package var isEmpty: Bool { firsts.isEmpty }

    /// The uid that `uid` counts as against the per-uid bounds: the user its interval is delegated to, else itself;
    /// a uid with an account of its own (``accounts``) counts as itself.
    package func owner(of uid: UInt32) -> UInt32 {
        guard let index = index(of: uid), !accounts.contains(uid) else { return uid }
        return owners[index]
    }

    /// Records that `uid`, a delegated uid, has an account of its own: it counts as itself from now on.
    /// - Returns: whether this changed how `uid` counts.
    @discardableResult
    package mutating func addAccount(_ uid: UInt32) -> Bool {
        guard index(of: uid) != nil else { return false }
        return accounts.insert(uid).inserted
    }

    /// The interval `uid` lies in, if any: a binary search for the first interval that starts after `uid`, since
    /// only the one before it can hold `uid`.
    private func index(of uid: UInt32) -> Int? {
        var low = 0
        var high = firsts.count
        while low < high {
            let middle = (low + high) / 2
            if firsts[middle] <= uid { low = middle + 1 } else { high = middle }
        }
        guard low > 0, lasts[low - 1] >= uid else { return nil }
        return low - 1
    }
}
