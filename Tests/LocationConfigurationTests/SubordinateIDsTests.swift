import Foundation
import LocationTestSupport
import SubordinateRanges
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
            #expect(configuration.core.subordinateIDs == ids)
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
