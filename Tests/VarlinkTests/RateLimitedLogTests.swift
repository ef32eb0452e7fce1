import NIOCore
import Testing

@testable import Varlink

/// F16: a flood of refusals makes one log line per kind and interval, and the next line counts the rest.
@Suite struct RateLimitedLogTests {
    @Test("F16: one line per kind every interval; the next says how many were left out, and kinds do not mix")
    func floodOfRefusals() {
        var log = RateLimitedLog(interval: .seconds(10))
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var lines: [String] = []
        // 1000 refusals within the first second, and an idle close among them.
        for index in 0..<1000 {
            let now = start + .milliseconds(Int64(index))
            if let line = log.line("max-connections", at: now, { "refused \(index)" }) { lines.append(line) }
            if index == 500, let line = log.line("idle-timeout", at: now, { "idle" }) { lines.append(line) }
        }
        #expect(lines == ["refused 0", "idle"])
        // Still within the interval: counted, not written.
        #expect(log.line("max-connections", at: start + .milliseconds(9_999), { "refused" }) == nil)
        // Once it has passed, the next line carries the count.
        #expect(
            log.line("max-connections", at: start + .seconds(10), { "refused again" })
                == "refused again (and 1000 more like it since the last such line)"
        )
        #expect(log.line("max-connections", at: start + .seconds(20), { "quiet since" }) == "quiet since")
    }
}
