import LocationCore
import Testing

@testable import LocationDaemon

/// The queue of messages waiting for the store (SEMANTICS §10), on its own: order per connection, and what
/// a closed connection leaves.
@Suite struct HeldMessagesTests {
    private func message(_ client: UInt64, _ serial: UInt64, waitsFor turn: UInt64) -> HeldMessage {
        HeldMessage(turn: turn, decision: 0, action: .reply(CallID(client: ClientID(client), serial: serial), .empty))
    }

    private func serials(_ actions: [Action]) -> [UInt64] {
        actions.map { action in
            guard case .reply(let call, _) = action else { return 0 }
            return call.client.raw * 100 + call.serial
        }
    }

    @Test("R10: a held message leaves only after its connection's earlier ones; other connections go on")
    func orderPerConnection() {
        var held = HeldMessages()
        var unreleased: Set<UInt64> = [1, 2]
        let isReleased = { (message: HeldMessage) in message.turn == 0 || !unreleased.contains(message.turn) }
        held.append(message(1, 1, waitsFor: 2), for: 1)
        held.append(message(2, 1, waitsFor: 1), for: 2)
        // Stored already, but behind connection 1's first message.
        held.append(message(1, 2, waitsFor: 0), for: 1)
        held.append(message(2, 2, waitsFor: 2), for: 2)
        held.append(message(2, 3, waitsFor: 1), for: 2)
        #expect(held.release(where: isReleased).isEmpty)
        #expect(held.count(of: 1) == 2 && held.count(of: 2) == 3)

        unreleased = [2]
        #expect(serials(held.release(where: isReleased)) == [201])
        #expect(held.count(of: 1) == 2 && held.count(of: 2) == 2)

        unreleased = []
        #expect(serials(held.release(where: isReleased)) == [101, 102, 202, 203])
        #expect(held.isEmpty && held.count(of: 1) == 0 && held.count(of: 2) == 0)
    }

    @Test("R13: a closed connection's held messages are never released, nor counted")
    func closedConnections() {
        var held = HeldMessages()
        for client in UInt64(1)...4 {
            for serial in UInt64(1)...3 { held.append(message(client, serial, waitsFor: 1), for: client) }
        }
        held.drop(1)
        held.drop(2)
        // Most of the queue is closed connections' now: they are removed, and the rest keep their order.
        held.drop(3)
        #expect(held.count(of: 3) == 0 && held.count(of: 4) == 3)
        #expect(serials(held.release(where: { _ in true })) == [401, 402, 403])
        #expect(held.isEmpty)

        held.append(message(5, 1, waitsFor: 1), for: 5)
        held.drop(5)
        #expect(held.isEmpty)
        #expect(held.release(where: { _ in true }).isEmpty)
    }
}
