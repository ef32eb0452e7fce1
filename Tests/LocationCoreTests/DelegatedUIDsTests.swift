import Testing

@testable import LocationCore

/// SEMANTICS H9: the table of delegated uids the core counts by, given by the shell.
@Suite("Delegated uids")
struct DelegatedUIDsTests {
    @Test("H9: a delegated uid counts as its user, its interval's ends included; any other uid as itself")
    func lookup() {
        let uids = DelegatedUIDs([
            .init(first: 100_000, last: 165_535, owner: 1000),
            .init(first: 165_536, last: 231_071, owner: 1001),
            .init(first: 4_294_967_000, last: UInt32.max, owner: 7),
        ])
        #expect(uids.owner(of: 100_000) == 1000 && uids.owner(of: 165_535) == 1000)
        #expect(uids.owner(of: 165_536) == 1001 && uids.owner(of: 231_071) == 1001)
        #expect(uids.owner(of: 99_999) == 99_999 && uids.owner(of: 231_072) == 231_072)
        #expect(uids.owner(of: UInt32.max) == 7 && uids.owner(of: 0) == 0)
        #expect(!uids.isEmpty && DelegatedUIDs().isEmpty)
    }

    @Test("H9: an interval out of order, empty or overlapping the one before is left out, not trusted")
    func badIntervals() {
        let uids = DelegatedUIDs([
            .init(first: 200_000, last: 200_009, owner: 1000),
            .init(first: 200_005, last: 200_020, owner: 1001),
            .init(first: 100_000, last: 100_009, owner: 1002),
            .init(first: 300_010, last: 300_000, owner: 1003),
        ])
        #expect(uids.owner(of: 200_007) == 1000)
        #expect(uids.owner(of: 200_015) == 200_015)
        #expect(uids.owner(of: 100_005) == 100_005)
        #expect(uids.owner(of: 300_005) == 300_005)
    }

    @Test("H9: a delegated uid with an account of its own counts as itself; an account outside the ranges is not kept")
    func accounts() {
        var uids = DelegatedUIDs([.init(first: 100_000, last: 100_009, owner: 1000)], accounts: [100_001, 5])
        #expect(uids.accounts == [100_001])
        #expect(uids.owner(of: 100_001) == 100_001 && uids.owner(of: 100_002) == 1000)
        #expect(uids.addAccount(100_002) && !uids.addAccount(100_002) && !uids.addAccount(42))
        #expect(uids.owner(of: 100_002) == 100_002)
    }
}
