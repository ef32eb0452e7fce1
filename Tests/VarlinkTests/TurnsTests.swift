import Testing

@testable import Varlink

/// SEMANTICS F19: turns by user. The bookkeeping alone, connection ids and uids, as the server drives it.
@Suite struct TurnsTests {
    /// Takes calls of `uid` until it may take no more; how many it took.
    private func drain(_ turns: inout Turns, _ principal: Turns.Principal) -> Int {
        var taken = 0
        while taken < 10_000, turns.take(principal) { taken += 1 }
        return taken
    }

    @Test("F19: one uid runs 16 calls a round however many connections it has; another uid's call runs in that round")
    func shareByUID() {
        var turns = Turns()
        let flooded = drain(&turns, .user(65534))
        #expect(flooded == Turns.callsPerShare)
        // Its 250 connections wait, in turn.
        for connection in 1...250 { turns.wait(UInt64(connection), as: .user(65534)) }
        let other = turns.take(.user(65533))
        #expect(other, "another user's call waits for no round")
        let otherRest = drain(&turns, .user(65533))
        #expect(otherRest == Turns.callsPerShare - 1)

        let waiting = turns.beginRound()
        #expect(waiting.administrators == 0 && waiting.users == 1)
        let uid = turns.nextUser()
        #expect(uid == 65534)
        let first = turns.nextConnection(of: 65534)
        #expect(first == 1)
        let share = drain(&turns, .user(65534))
        #expect(share == Turns.callsPerShare)
        let beyond = turns.nextConnection(of: 65534)
        #expect(beyond == nil, "the share is used: the other 249 wait for the next round")
        turns.requeue(65534)
        #expect(turns.waiting(of: 65534) == 249)
        _ = turns.beginRound()
        let again = turns.nextUser()
        #expect(again == 65534)
        let second = turns.nextConnection(of: 65534)
        #expect(second == 2, "its connections take its share in turn")
        #expect(turns.callsRun == UInt64(3 * Turns.callsPerShare))
    }

    @Test("F19: an administrator's connection is held to its own turn of 16, not to a share of its uid")
    func administratorsOwnTurn() {
        var turns = Turns()
        let first = drain(&turns, .administrator(1))
        let second = drain(&turns, .administrator(2))
        #expect(first == Turns.callsPerShare && second == Turns.callsPerShare)
        let user = drain(&turns, .user(0))
        #expect(user == Turns.callsPerShare, "a user's share is apart from the administrators' turns")
    }

    @Test("F19: a round runs 256 calls, then only administrators'; the uids left go first at the next")
    func roundCap() {
        var turns = Turns()
        for uid in UInt32(1000)..<1020 { turns.wait(UInt64(uid), as: .user(uid)) }
        let waiting = turns.beginRound()
        #expect(waiting.users == 20)
        var served: [UInt32] = []
        for _ in 0..<waiting.users {
            guard let uid = turns.nextUser() else { break }
            served.append(uid)
            _ = turns.nextConnection(of: uid)
            let share = drain(&turns, .user(uid))
            #expect(share == Turns.callsPerShare)
        }
        #expect(served == Array(1000..<1016), "16 shares fill the round")
        #expect(turns.isRoundFull)
        let ordinary = turns.take(.user(2000))
        #expect(!ordinary, "an ordinary call waits once the round is full")
        let administrator = turns.take(.administrator(7))
        #expect(administrator, "an administrator's does not")
        _ = turns.beginRound()
        let next = turns.nextUser()
        #expect(next == 1016, "the uids the full round left go first")
    }

    @Test("F19: administrators' waiting connections are served before any uid's share")
    func administratorsFirst() {
        var turns = Turns()
        turns.wait(1, as: .user(65534))
        turns.wait(2, as: .administrator(2))
        let waiting = turns.beginRound()
        #expect(waiting.administrators == 1 && waiting.users == 1)
        let first = turns.nextAdministrator()
        #expect(first == 2)
        let none = turns.nextAdministrator()
        #expect(none == nil)
    }
}
