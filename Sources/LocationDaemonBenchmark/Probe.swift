/// One call asked again and again on a connection of its own, at most every `interval` seconds, one at a time: how
/// long another client waits while locd is busy.
struct Probe {
    let connection: Int
    let call: [UInt8]
    let interval: Double
    private var sentAt: Double?
    private var lastSent = 0.0
    /// Each answered call: when it was sent (`CLOCK_REALTIME`) and how long its reply took.
    private var samples: [(sent: Double, seconds: Double)] = []

    init(connection: Int, call: [UInt8], interval: Double) {
        self.connection = connection
        self.call = call
        self.interval = interval
    }

    /// Sends the call unless one is unanswered or the last went out less than the interval ago.
    mutating func askIfDue(_ driver: ClientDriver) throws {
        let now = Clock.unixTime
        guard sentAt == nil, now - lastSent >= interval else { return }
        sentAt = now
        lastSent = now
        try driver.send(connection, call)
    }

    /// Records the reply that reached the benchmark at `receivedAt` (`CLOCK_REALTIME`).
    mutating func replied(_ frame: ArraySlice<UInt8>, receivedAt: Double) throws {
        if let name = Wire.error(in: frame) {
            throw BenchError.failed("a probe answered \(name): \(String(decoding: frame, as: UTF8.self).prefix(300))")
        }
        guard let sent = sentAt else { return }
        samples.append((sent, receivedAt - sent))
        sentAt = nil
    }

    /// The latencies of the calls sent within `span`.
    func latencies(sentIn span: ClosedRange<Double>) -> Latencies {
        var latencies = Latencies()
        for sample in samples where span.contains(sample.sent) { latencies.record(seconds: sample.seconds) }
        return latencies
    }
}
