import Foundation
import LocationTestSupport
import SubordinateRanges
import Synchronization
import Testing

@testable import LocationConfiguration
@testable import LocationCore

/// SEMANTICS H9: `[limits] subordinate-uids`, the ranges of `/etc/subuid` whose uids count against their user.
@Suite("Subordinate uids")
struct SubordinateIDsTests {
    @Test(
        "H9: subordinate-uids reads NAME:START:COUNT and UID:START:COUNT lines; a line it cannot read is skipped with file, line and why"
    )
    func readsTheRanges() throws {
        try TemporaryDirectory.with { directory in
            let subuid = try directory.write(
                "subuid",
                """
                root:100000:65536
                # a comment
                1000:165536:65536

                nobody-at-all-here:231072:65536
                alice:1:2:3
                1001:4294967295:2
                1002:300000:0
                1003:x:1
                1001:200000:10
                """
            )
            let main = try directory.write("locd.toml", "[limits]\nsubordinate-uids = \"\(subuid)\"\n")
            let configuration = try DaemonConfiguration.loadOwn(path: main)
            let ids = configuration.subordinateIDs
            #expect(ids.owner(of: 100_000) == 0 && ids.owner(of: 165_535) == 0)
            #expect(ids.owner(of: 165_536) == 1000 && ids.owner(of: 231_071) == 1000)
            #expect(ids.owner(of: 231_072) == 231_072, "the line of an unknown user delegates nothing")
            #expect(ids.owner(of: 99_999) == 99_999 && ids.owner(of: 1000) == 1000)
            #expect(ids.owner(of: 200_005) == 1000, "where ranges overlap, the first line's user has the uid")
            #expect(
                configuration.subordinateIDsSkipped.map { $0.components(separatedBy: " (").first ?? "" } == [
                    "\(subuid):5: skipped", "\(subuid):6: skipped", "\(subuid):7: skipped", "\(subuid):8: skipped",
                    "\(subuid):9: skipped",
                ]
            )
            #expect(configuration.subordinateIDsSkipped[0].contains("no user is named nobody-at-all-here"))
            #expect(configuration.subordinateIDsSkipped[2].contains("past uid 4294967294"))
            // The core counts by the same table, taken as a value of its own.
            let counted = configuration.core.subordinateIDs
            for uid: UInt32 in [99_999, 100_000, 165_535, 165_536, 200_005, 231_071, 231_072, 300_000, 1000] {
                #expect(counted.owner(of: uid) == ids.owner(of: uid), "uid \(uid)")
            }
        }
    }

    @Test("H9: subordinate-uids = \"\" delegates nothing, a missing file neither, and a relative path is refused")
    func noneAndBadValues() throws {
        try TemporaryDirectory.with { directory in
            let none = try directory.write("none.toml", "[limits]\nsubordinate-uids = \"\"\n")
            #expect(try DaemonConfiguration.loadOwn(path: none).subordinateIDs == SubordinateIDs())
            let missing = try directory.write("missing.toml", "[limits]\nsubordinate-uids = \"/no/such/subuid\"\n")
            let loaded = try DaemonConfiguration.loadOwn(path: missing)
            #expect(loaded.subordinateIDs == SubordinateIDs() && loaded.subordinateIDsSkipped.isEmpty)
            let relative = try directory.write("relative.toml", "[limits]\nsubordinate-uids = \"etc/subuid\"\n")
            let issue = #expect(throws: ConfigurationIssue.self) { try DaemonConfiguration.loadOwn(path: relative) }
            #expect(issue?.description.contains("limits.subordinate-uids") == true, "\(issue?.description ?? "")")
        }
    }
}

/// SEMANTICS H9: the reader's bytes, the table of intervals, and the accounts inside ranges.
@Suite("Subordinate uids: reader and table")
struct SubordinateTableTests {
    @Test(
        "H9: lines end at each line-feed byte: a CR LF line is skipped as newuidmap skips it, and every later line keeps its number"
    )
    func crLineEnds() {
        let text = "1000:100000:10\r\n1001:200000:10\n# a comment\r\n\n1002:300000:0\n1003:400000:10"
        let (ids, skipped) = SubordinateIDs.parse(Array(text.utf8), file: "subuid") { _ in nil }
        #expect(ids.owner(of: 100_005) == 100_005, "the CR LF line delegates nothing")
        #expect(ids.owner(of: 200_005) == 1001 && ids.owner(of: 400_009) == 1003)
        #expect(
            skipped.map { $0.components(separatedBy: " (").first ?? "" } == ["subuid:1: skipped", "subuid:5: skipped"]
        )
        #expect(skipped.first?.contains("carriage return") == true, "\(skipped)")
        #expect(ids.delegation(of: 400_000)?.line == 6)
    }

    @Test("H9: the table of intervals answers as the first line covering a uid, for random overlapping ranges")
    func tableMatchesTheFirstLine() {
        var random = SplitMix64(seed: 9)
        for _ in 0..<50 {
            let ranges = (0..<Int.random(in: 1...40, using: &random)).map { index in
                SubordinateIDs.Range(
                    start: UInt32.random(in: 0...1_000, using: &random),
                    count: UInt32.random(in: 1...200, using: &random),
                    owner: UInt32.random(in: 1...5, using: &random),
                    line: index + 1
                )
            }
            let ids = SubordinateIDs(ranges)
            for uid in UInt32(0)...1_300 {
                let first = ranges.first { uid >= $0.start && uid - $0.start < $0.count }
                #expect(ids.owner(of: uid) == first?.owner ?? uid, "uid \(uid) in \(ranges)")
                #expect(ids.delegation(of: uid)?.line == first?.line, "uid \(uid) in \(ranges)")
            }
            #expect(ids.intervalCount <= 2 * ranges.count)
        }
        let top = SubordinateIDs([.init(start: 4_294_967_000, count: 295, owner: 7)])
        #expect(top.owner(of: 4_294_967_294) == 7 && top.owner(of: 4_294_966_999) == 4_294_966_999)
    }

    @Test(
        "H9: an account the system lists inside a range counts as itself, logged with the account and the range's line"
    )
    func listedAccounts() throws {
        try TemporaryDirectory.with { directory in
            let subuid = try directory.write("subuid", "# ranges\n1000:100000:65536\n1001:165536:65536\n")
            let main = try directory.write("locd.toml", "[limits]\nsubordinate-uids = \"\(subuid)\"\n")
            let accounts: [(name: String, uid: UInt32)] = [("carol", 200_001), ("dave", 1000), ("erin", 100_000)]
            let configuration = try DaemonConfiguration.loadOwn(path: main, accounts: accounts)
            let ids = configuration.core.subordinateIDs
            #expect(ids.owner(of: 200_001) == 200_001 && ids.owner(of: 100_000) == 100_000)
            #expect(ids.owner(of: 200_002) == 1001 && ids.owner(of: 100_001) == 1000)
            #expect(configuration.subordinateIDsOverlaps.count == 2, "\(configuration.subordinateIDsOverlaps)")
            #expect(
                configuration.subordinateIDsOverlaps.first?.hasPrefix(
                    "\(subuid):3: uid 200001 is the account carol, inside the range this line delegates to uid 1001: "
                        + "it counts as itself, not as uid 1001"
                ) == true,
                "\(configuration.subordinateIDsOverlaps)"
            )
        }
    }

    @Test("H9: the system is asked only of a uid in a range, once per load, whether it has an account")
    func lookupsOnlyInRanges() {
        let asked = Asked()
        var lookup = AccountLookup { uid in
            asked.uids.withLock { $0.append(uid) }
            return uid == 100_007
        }
        var ids = SubordinateIDs([.init(start: 100_000, count: 10, owner: 1000)])
        for uid: UInt32 in [5, 1000, 100_001, 100_001, 100_007, 200_000] {
            let (counted, found) = lookup.counted(uid, in: ids)
            if found != nil { ids.addAccount(uid) }
            #expect(counted == (uid == 100_001 ? 1000 : uid))
        }
        #expect(lookup.counted(100_007, in: ids).counted == 100_007)
        #expect(asked.uids.withLock { $0 } == [100_001, 100_007])
    }
}

private final class Asked: Sendable {
    let uids = Mutex<[UInt32]>([])
}
