import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS F21: a burst of deadlines due together is handled in bounded batches, each asking for the next.
@Suite("Deadline batches")
struct DeadlineBatchTests {
    static let maps = "com.ex.maps"

    /// A client of `com.ex.maps` holding `count` sessions, disconnected at `h.now`: all linger until the same instant.
    private static func lingering(_ count: Int) -> (Harness, [SessionID]) {
        var h = Harness(configuration: CoreConfiguration(maxSessionsPerApp: count, maxSessionsPerUID: count))
        h.set(maps, .whileUsing)
        let app = h.launch(maps)
        let ids = (0..<count).compactMap { _ in h.create(app, .whenInUse) }
        h.disconnect(app)
        return (h, ids)
    }

    private static func removed(_ h: Harness) -> Int {
        h.persisted.filter { if case .sessionRemoved = $0 { true } else { false } }.count
    }

    private static func timers(_ h: Harness) -> [Instant?] {
        h.last.compactMap { if case .armTimer(let at) = $0 { at } else { nil } }
    }

    @Test("F21: 600 expiries due at once end over three wake-ups of at most 256 deadlines, each asking for the next")
    func burstInBatches() {
        let count = 600
        var (h, ids) = Self.lingering(count)
        #expect(ids.count == count)
        let deadline = h.now.adding(.seconds(10))

        // 601 deadlines are due: the 600 sessions' and the app's relaunch window (L3), in any order.
        h.advance(10)
        var ended = Self.removed(h)
        #expect(ended >= LocationCore.deadlineBatch - 1 && ended <= LocationCore.deadlineBatch)
        #expect(Self.timers(h) == [deadline])  // due already: the shell wakes the core again at once
        #expect(ids.filter { h.session($0) != nil }.count == count - ended)

        h.send(.deadlineReached)
        #expect(Self.removed(h) >= LocationCore.deadlineBatch - 1)
        ended += Self.removed(h)
        #expect(Self.timers(h) == [deadline])

        h.send(.deadlineReached)
        ended += Self.removed(h)
        #expect(ended == count)
        #expect(ids.allSatisfy { h.session($0) == nil })
        #expect(h.appState(Self.maps) == .notRunning)
        #expect(Self.timers(h) == [nil])

        h.send(.deadlineReached)  // a duplicate wake-up does nothing (L6)
        #expect(h.persisted.isEmpty)
        #expect(Self.timers(h) == [])
    }

    @Test("F21: a call between two batches is answered and handles one batch itself; nothing expires twice")
    func callBetweenBatches() {
        let count = 3 * LocationCore.deadlineBatch - 10
        var (h, ids) = Self.lingering(count)
        let admin = h.connect()
        h.advance(10)
        var ended = Self.removed(h)
        #expect(ended > 0 && ended <= LocationCore.deadlineBatch)

        let status = h.call(admin, .status)
        #expect(h.reply(to: status) != nil)
        #expect(Self.removed(h) > 0 && Self.removed(h) <= LocationCore.deadlineBatch)
        ended += Self.removed(h)
        #expect(!Self.timers(h).isEmpty)

        var wakeUps = 0
        while ids.contains(where: { h.session($0) != nil }) && wakeUps < 10 {
            h.send(.deadlineReached)
            ended += Self.removed(h)
            wakeUps += 1
        }
        #expect(wakeUps == 1)
        #expect(ended == count)
    }
}
