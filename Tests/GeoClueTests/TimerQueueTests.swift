import Testing

@testable import LocationGeoClue

/// The bus thread's timers (``TimerQueue``): a replaced Location object's 5 s (G9) and a `Start`'s 20 s bound (G17)
/// pending together by the thousand.
@Suite("locd-geoclue: the bus thread's timers")
struct TimerQueueTests {
    @Test("G9, G17: timers run in instant order, those of one instant in the order added, whatever their delays")
    func order() {
        let start = ContinuousClock.now
        var queue = TimerQueue<Int>()
        // Interleaved as under churn: each cycle a 20 s bound, then a 5 s Location timer, then one more 5 s.
        var expected: [(ContinuousClock.Instant, Int)] = []
        for cycle in 0..<1000 {
            let delays = [20.0, 5.0, 5.0]
            for (index, delay) in delays.enumerated() {
                let at = start.advanced(by: .milliseconds(cycle) + .seconds(delay))
                queue.add(at: at, cycle * 3 + index)
                expected.append((at, cycle * 3 + index))
            }
        }
        // Equal instants: the first added runs first.
        queue.add(at: start.advanced(by: .seconds(5)), -1)
        expected.append((start.advanced(by: .seconds(5)), -1))
        #expect(queue.count == 3001)
        #expect(queue.next == start.advanced(by: .seconds(5)))
        #expect(queue.takeDue(at: start.advanced(by: .seconds(4))).isEmpty)
        let order = expected.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }
            .map(\.element.1)
        let middle = start.advanced(by: .seconds(12))
        let first = queue.takeDue(at: middle)
        #expect(first == order.filter { value in expected.first { $0.1 == value }!.0 <= middle })
        let rest = queue.takeDue(at: start.advanced(by: .seconds(60)))
        #expect(first + rest == order)
        #expect(queue.count == 0 && queue.next == nil)
    }
}
