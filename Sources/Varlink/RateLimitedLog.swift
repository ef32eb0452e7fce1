import NIOCore

/// Log lines of one kind at most once an interval: a flood of refusals writes one line, and the next line of
/// that kind says how many were left out. The kinds are a handful of fixed names, so the memory is bounded.
struct RateLimitedLog {
    let interval: TimeAmount
    private var lastLine: [String: NIODeadline] = [:]
    private var leftOut: [String: Int] = [:]

    init(interval: TimeAmount) {
        self.interval = interval
    }

    /// The line to log for an event of `kind` at `now`, or `nil` when one of that kind was logged less than an
    /// interval ago (then the event is counted for the next line).
    mutating func line(_ kind: String, at now: NIODeadline, _ message: () -> String) -> String? {
        if let last = lastLine[kind], now - last < interval {
            leftOut[kind, default: 0] += 1
            return nil
        }
        lastLine[kind] = now
        guard let count = leftOut.removeValue(forKey: kind) else { return message() }
        return message() + " (and \(count) more like it since the last such line)"
    }
}
