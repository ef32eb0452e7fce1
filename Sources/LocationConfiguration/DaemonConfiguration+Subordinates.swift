import LocationCore
import SubordinateRanges

extension DaemonConfiguration {
    /// H9: reads the file `[limits] subordinate-uids` names into ``subordinateIDs``, and the lines it skips, with
    /// why, into ``subordinateIDsSkipped``; then records each account the system lists inside a range as counting
    /// as itself, with a line for the log in ``subordinateIDsOverlaps``. A missing file, or none named, delegates
    /// nothing.
    /// - Parameters:
    ///   - read: the reader of the file, ``SubordinateIDs/read(file:)`` but in tests.
    ///   - accounts: the accounts the system lists (getpwent); asked only when the file has ranges.
    package mutating func importSubordinateIDs(
        read: (String) -> (SubordinateIDs, [String]) = { SubordinateIDs.read(file: $0) },
        accounts: () -> [(name: String, uid: UInt32)] = { SystemAccounts.listed() }
    ) {
        subordinateIDs = SubordinateIDs()
        subordinateIDsSkipped = []
        subordinateIDsOverlaps = []
        guard let file = limits.subordinateUIDs else { return }
        (subordinateIDs, subordinateIDsSkipped) = read(file)
        guard !subordinateIDs.isEmpty else { return }
        subordinateIDsOverlaps = subordinateIDs.admit(accounts())
    }
}

extension DelegatedUIDs {
    /// The table the rule core counts by (H9): the intervals of `ids` and the accounts found in them.
    package init(_ ids: SubordinateIDs) {
        self.init(
            ids.intervals.map { Interval(first: $0.first, last: $0.last, owner: $0.owner) },
            accounts: ids.accounts
        )
    }
}
