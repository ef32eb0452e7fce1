import Testing

@testable import Varlink

/// SEMANTICS F19: turns by user. The bookkeeping alone, connection ids and uids, as the server drives it.
@Suite struct TurnsTests {
    /// Takes calls of `uid` until it may take no more; how many it took.
    private func drain(_ turns: inout Turns, uid: UInt32, administrator: Bool = false) -> Int {
        var taken = 0
        while taken < 10_000, turns.take(uid: uid, administrator: { administrator }) { taken += 1 }
        return taken
    }

    @Test("F19: one uid runs 16 calls a round however many connections it has; another uid's call runs in that round")
    func shareByUID() {
        var turns = Turns()
        let flooded = drain(&turns, uid: 65534)
        #expect(flooded == Turns.callsPerShare)
        // Its 250 connections wait, in turn.
        for connection in 1...250 { turns.wait(UInt64(connection), uid: 65534, administrator: false) }
        let other = turns.take(uid: 65533, administrator: { false })
        #expect(other, "another user's call waits for no round")
        let otherRest = drain(&turns, uid: 65533)
        #expect(otherRest == Turns.callsPerShare - 1)

        let waiting = turns.beginRound()
        #expect(waiting.administrators == 0 && waiting.uids == 1)
        let uid = turns.nextUID()
        #expect(uid == 65534)
        let first = turns.nextConnection(of: 65534)
        #expect(first == 1)
        let share = drain(&turns, uid: 65534)
        #expect(share == Turns.callsPerShare)
        let beyond = turns.nextConnection(of: 65534)
        #expect(beyond == nil, "the share is used: the other 249 wait for the next round")
        turns.requeue(65534)
        #expect(turns.waiting(of: 65534) == 249)
        _ = turns.beginRound()
        let again = turns.nextUID()
        #expect(again == 65534)
        let second = turns.nextConnection(of: 65534)
        #expect(second == 2, "its connections take its share in turn")
        #expect(turns.callsRun == UInt64(3 * Turns.callsPerShare))
    }

    @Test("F19: a round runs 256 calls, then only administrators'; the uids left go first at the next")
    func roundCap() {
        var turns = Turns()
        for uid in UInt32(1000)..<1020 { turns.wait(UInt64(uid), uid: uid, administrator: false) }
        let waiting = turns.beginRound()
        #expect(waiting.uids == 20)
        var served: [UInt32] = []
        for _ in 0..<waiting.uids {
            guard let uid = turns.nextUID() else { break }
            served.append(uid)
            _ = turns.nextConnection(of: uid)
            let share = drain(&turns, uid: uid)
            #expect(share == Turns.callsPerShare)
        }
        #expect(served == Array(1000..<1016), "16 shares fill the round")
        #expect(turns.isRoundFull)
        let ordinary = turns.take(uid: 2000, administrator: { false })
        #expect(!ordinary, "an ordinary call waits once the round is full")
        let administrator = turns.take(uid: 0, administrator: { true })
        #expect(administrator, "an administrator's does not")
        _ = turns.beginRound()
        let next = turns.nextUID()
        #expect(next == 1016, "the uids the full round left go first")
    }

    @Test("F19: administrators' waiting connections are served before any uid's share")
    func administratorsFirst() {
        var turns = Turns()
        turns.wait(1, uid: 65534, administrator: false)
        turns.wait(2, uid: 0, administrator: true)
        let waiting = turns.beginRound()
        #expect(waiting.administrators == 1 && waiting.uids == 1)
        let first = turns.nextAdministrator()
        #expect(first == 2)
        let none = turns.nextAdministrator()
        #expect(none == nil)
    }
}
