import LocationCore

/// The replies and stream messages waiting for the store (R10–R13): one queue for every connection, in the
/// order they were held, and how many each connection has in it.
///
/// A switch seen by 10,000 streams holds 10,000 diagnostics that wait for the same turn: they are appended
/// to one array and released in one pass, with no queue per connection to build, look up and put back.
/// A connection's messages keep their order, since a message is released only once every earlier message
/// of its connection is; a connection with nothing held is one with no count.
struct HeldMessages {
    private var entries: [(client: UInt64, message: HeldMessage)] = []
    /// The number of each connection's messages in `entries`; a connection with none has no count.
    private var counts: [UInt64: Int] = [:]
    /// Entries of connections dropped since, removed at the next release or once they are most of the queue.
    private var dropped = 0
    /// The room kept once the queue empties: a fan-out's worth, not what a long stall piled up.
    private static let keptCapacity = 65_536

    /// Whether no connection has a message held.
    var isEmpty: Bool { counts.isEmpty }

    /// The number of `client`'s messages held.
    func count(of client: UInt64) -> Int {
        counts[client] ?? 0
    }

    /// Holds `message` after every message already held.
    mutating func append(_ message: HeldMessage, for client: UInt64) {
        entries.append((client, message))
        counts[client, default: 0] += 1
    }

    /// Forgets a closed connection's messages.
    mutating func drop(_ client: UInt64) {
        guard let count = counts.removeValue(forKey: client) else { return }
        dropped += count
        if counts.isEmpty {
            empty()
        } else if dropped > entries.count / 2 {
            // A closing connection's messages go once they are half the queue: what closed connections
            // leave costs at most as much as what open ones hold (R13), at constant cost per message.
            entries.removeAll { counts[$0.client] == nil }
            dropped = 0
        }
    }

    /// Removes and returns, in the order they were held, the messages that `isReleased` lets out and that
    /// no earlier message of their connection still holds back.
    mutating func release(where isReleased: (HeldMessage) -> Bool) -> [Action] {
        var ready: [Action] = []
        ready.reserveCapacity(entries.count)
        var blocked: Set<UInt64> = []
        var kept = 0
        for index in entries.indices {
            let entry = entries[index]
            if dropped > 0, counts[entry.client] == nil { continue }
            if blocked.isEmpty || !blocked.contains(entry.client), isReleased(entry.message) {
                ready.append(entry.message.action)
            } else {
                blocked.insert(entry.client)
                entries[kept] = entry
                kept += 1
            }
        }
        guard kept > 0 else {
            empty()
            return ready
        }
        entries.removeSubrange(kept...)
        dropped = 0
        counts.removeAll(keepingCapacity: true)
        for entry in entries { counts[entry.client, default: 0] += 1 }
        return ready
    }

    private mutating func empty() {
        entries.removeAll(keepingCapacity: entries.capacity <= Self.keptCapacity)
        counts.removeAll(keepingCapacity: counts.capacity <= Self.keptCapacity)
        dropped = 0
    }
}
