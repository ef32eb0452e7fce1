import LocationCore

/// The writes of one or more event-loop turns, committed in one transaction (group commit), and the
/// numbers of the turns they came from, so that the messages waiting for them are released once stored.
struct CommitBatch {
    private(set) var writes: [Persist] = []
    private(set) var turns: [UInt64] = []

    var isEmpty: Bool { writes.isEmpty }

    /// The newest turn in the batch, or 0 for an empty one.
    var lastTurn: UInt64 { turns.last ?? 0 }

    mutating func append(_ turnWrites: [Persist], turn: UInt64) {
        writes.append(contentsOf: turnWrites)
        turns.append(turn)
    }

    /// Adds `later`'s writes after this batch's, in one transaction: the order of the writes is kept.
    mutating func absorb(_ later: CommitBatch) {
        writes.append(contentsOf: later.writes)
        turns.append(contentsOf: later.turns)
    }
}
