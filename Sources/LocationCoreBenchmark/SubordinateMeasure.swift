import LocationCore
import SubordinateRanges

#if canImport(Glibc)
import Glibc
#endif

/// `[limits] subordinate-uids` of a million lines (SEMANTICS H9): the read at start (file, lines, table of
/// intervals) and the lookup each connection and each per-uid bound makes, a binary search.
enum SubordinateMeasure {
    /// Adds the measure's two rows to `table`, the lookups' with how many uids lay in a range (so that none is
    /// optimised away); returns 0, as no core action is counted.
    static func run(_ sizes: BenchSizes, into table: inout ResultTable) -> Int {
        let lines = 1_000_000 / sizes.scale
        let file = "/tmp/locd-core-bench-subuid-\(getpid())"
        guard write(lines: lines, to: file) else {
            print("locd-core-bench: cannot write \(file)")
            return 0
        }
        defer { unlink(file) }
        let start = Timing.clock.now
        let (ids, skipped) = SubordinateIDs.read(file: file)
        let readMilliseconds = Timing.nanoseconds(Timing.clock.now - start) / 1e6
        // The target is for a million lines; a quick run scales it to its size.
        let readTarget = 1_000.0 / Double(sizes.scale)
        table.rows.append(
            ResultTable.Row(
                measure: "subordinate-uids read at start, \(ResultTable.grouped(lines)) lines",
                result: "\(ResultTable.format(readMilliseconds, decimals: 1)) ms, "
                    + "\(ResultTable.grouped(ids.intervalCount)) intervals, \(skipped.count) skipped",
                target: "< \(ResultTable.format(readTarget)) ms",
                met: readMilliseconds < readTarget && skipped.isEmpty
            )
        )
        // The shell's table (what each connection's uid is looked up in) and the core's copy of it (what each
        // per-uid bound is counted by, DelegatedUIDs), the same binary search over the same intervals.
        let core = DelegatedUIDs(
            ids.intervals.map { DelegatedUIDs.Interval(first: $0.first, last: $0.last, owner: $0.owner) },
            accounts: ids.accounts
        )
        table.rows.append(lookupRow("per connection", in: "that table") { ids.owner(of: $0) })
        table.rows.append(lookupRow("per-uid bound", in: "the core's copy") { core.owner(of: $0) })
        return 0
    }

    /// A million lookups of pseudo-random uids through `owner`, timed, with how many lay in a range (so that none
    /// is optimised away).
    private static func lookupRow(_ use: String, in table: String, _ owner: (UInt32) -> UInt32) -> ResultTable.Row {
        let lookups = 1_000_000
        var random = UInt64(0x9E37_79B9_7F4A_7C15)
        var delegated = 0
        let start = Timing.clock.now
        for _ in 0..<lookups {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let uid = UInt32(truncatingIfNeeded: random >> 32)
            if owner(uid) != uid { delegated += 1 }
        }
        let perLookup = Timing.nanoseconds(Timing.clock.now - start) / Double(lookups)
        return ResultTable.Row(
            measure: "subordinate uid lookup (\(use)), \(ResultTable.grouped(lookups)) in \(table)",
            result:
                "\(ResultTable.format(perLookup, decimals: 1)) ns each, \(ResultTable.grouped(delegated)) in a range",
            target: "< 1,000 ns",
            met: perLookup < 1_000
        )
    }

    /// Writes `lines` lines in `/etc/subuid`'s format: ranges of 4,096 uids from 100000 in a shuffled order, one in
    /// ten overlapping the next, owners by uid and a few by name, and a comment every thousand lines.
    private static func write(lines: Int, to file: String) -> Bool {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines * 26)
        for index in 0..<lines {
            if index % 1_000 == 999 {
                bytes += Array("# users \(index - 998) to \(index)\n".utf8)
                continue
            }
            // 7,919 is prime, so it shuffles 0..<lines when lines is not a multiple of it.
            let slot = (index * 7_919) % lines
            let owner = index % 100 == 0 ? "root" : "\(1_000 + index % 60_000)"
            let count = index % 10 == 0 ? 6_144 : 4_096
            bytes += Array("\(owner):\(100_000 + slot * 4_096):\(count)\n".utf8)
        }
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}
