/// The ranges of subordinate uids delegated to users, as `/etc/subuid` lists them for `newuidmap` (SEMANTICS H9):
/// every per-uid bound counts a delegated uid against the user it is delegated to, unless the uid has an account of
/// its own.
///
/// The ranges are kept as a sorted table of disjoint intervals, built once when the file is read, so that a lookup
/// is a binary search: a file of a million lines costs nothing measurable per connection.
package struct SubordinateIDs: Hashable, Codable, Sendable {
    /// `count` uids from `start`, delegated to the user `owner` by the file's line `line`.
    package struct Range: Hashable, Codable, Sendable {
        package var start: UInt32
        package var count: UInt32
        package var owner: UInt32
        /// The line of the file that delegates it (1 for the first); 0 for a range made in code.
        package var line: Int

        package init(start: UInt32, count: UInt32, owner: UInt32, line: Int = 0) {
            self.start = start
            self.count = count
            self.owner = owner
            self.line = line
        }

        /// The last uid of the range; `count` is at least 1.
        var last: UInt64 { UInt64(start) + UInt64(count) - 1 }
    }

    /// Where a uid lies: the user its range delegates it to, and the line of that range.
    package struct Delegation: Hashable, Codable, Sendable {
        package var owner: UInt32
        package var line: Int
    }

    /// The first uid of each interval, ascending; the intervals are disjoint.
    private var firsts: [UInt32] = []
    /// The last uid of each interval.
    private var lasts: [UInt32] = []
    /// The delegation of each interval: the range of the earliest line that covers it.
    private var delegations: [Delegation] = []
    /// Uids in a range that have an account of their own, and so count as themselves (H9).
    package private(set) var accounts: Set<UInt32> = []
    /// The file the ranges were read from, for the log; empty for ranges made in code.
    package var source = ""

    /// The table of `ranges`, given in the file's order: where ranges overlap, the first has the uid. A range of 0
    /// uids, or one past uid 4294967295, is left out (the reader skips such lines before).
    package init(_ ranges: [Range] = []) {
        let valid = ranges.filter { $0.count > 0 && $0.last <= UInt64(UInt32.max) }
        build(valid)
    }

    /// The number of disjoint intervals in the table.
    package var intervalCount: Int { firsts.count }

    /// Whether no range delegates any uid.
    package var isEmpty: Bool { firsts.isEmpty }

    /// The disjoint intervals of the table, ascending, each with the user it is delegated to: what the rule core
    /// counts by (it takes them as values of its own, and reads no file).
    package var intervals: [(first: UInt32, last: UInt32, owner: UInt32)] {
        firsts.indices.map { (firsts[$0], lasts[$0], delegations[$0].owner) }
    }

    /// The range `uid` lies in, if any, whether or not the uid has an account of its own: a binary search.
    package func delegation(of uid: UInt32) -> Delegation? {
        var low = 0
        var high = firsts.count
        // The first interval that starts after uid; the one before it is the only one that can hold uid.
        while low < high {
            let middle = (low + high) / 2
            if firsts[middle] <= uid { low = middle + 1 } else { high = middle }
        }
        guard low > 0, lasts[low - 1] >= uid else { return nil }
        return delegations[low - 1]
    }

    /// The uid that `uid` counts as against the per-uid bounds: the user a range delegates it to, else itself; a
    /// uid known to have an account of its own (``accounts``) counts as itself.
    package func owner(of uid: UInt32) -> UInt32 {
        guard let delegation = delegation(of: uid), !accounts.contains(uid) else { return uid }
        return delegation.owner
    }

    /// Records that `uid`, a uid in a range, has an account of its own: it counts as itself from now on.
    /// - Returns: whether this changed how `uid` counts.
    @discardableResult
    package mutating func addAccount(_ uid: UInt32) -> Bool {
        guard delegation(of: uid) != nil else { return false }
        return accounts.insert(uid).inserted
    }

    /// Builds the table: a sweep over the ranges by start, where of the ranges covering a stretch the one of the
    /// earliest line (the smallest index) has it. O(n log n) for n ranges.
    private mutating func build(_ ranges: [Range]) {
        let order = ranges.indices.sorted { (ranges[$0].start, $0) < (ranges[$1].start, $1) }
        var active = MinimumHeap()
        var next = 0
        var position: UInt64 = 0
        while next < order.count || !active.isEmpty {
            if active.isEmpty { position = UInt64(ranges[order[next]].start) }
            while next < order.count, UInt64(ranges[order[next]].start) == position {
                active.push(order[next])
                next += 1
            }
            // Ranges that ended before `position` leave when they come to the top.
            while let top = active.top, ranges[top].last < position { active.pop() }
            guard let top = active.top else { continue }
            let nextStart = next < order.count ? UInt64(ranges[order[next]].start) : UInt64.max
            let end = min(ranges[top].last, nextStart - 1)
            append(first: position, last: end, Delegation(owner: ranges[top].owner, line: ranges[top].line))
            position = end + 1
        }
    }

    /// Appends an interval, merged with the one before when it continues it for the same range.
    private mutating func append(first: UInt64, last: UInt64, _ delegation: Delegation) {
        if let previous = lasts.last, UInt64(previous) + 1 == first, delegations.last == delegation {
            lasts[lasts.count - 1] = UInt32(last)
            return
        }
        firsts.append(UInt32(first))
        lasts.append(UInt32(last))
        delegations.append(delegation)
    }
}

/// A binary min-heap of indices: the active range of the earliest line on top.
private struct MinimumHeap {
    private var items: [Int] = []

    var isEmpty: Bool { items.isEmpty }
    var top: Int? { items.first }

    mutating func push(_ item: Int) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() {
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, items[left] < items[smallest] { smallest = left }
            if right < items.count, items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
