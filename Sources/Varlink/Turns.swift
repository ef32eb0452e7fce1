import NIOCore

/// Who runs calls, and how many, between two looks of the event loop at its sockets (SEMANTICS F17, F19).
///
/// Calls are counted by user, not by connection: the connections of one uid (the uid each counts as for
/// `max-connections-per-uid`, a broker's connection the uid of the process it speaks for) run at most
/// ``callsPerShare`` calls in all in a round, however many connections they are. A connection that wants more
/// waits with its uid; at the next round, which begins at the next look at the sockets (``TurnBell``), the
/// administrators' connections that wait go first, then each waiting uid in turn gets its share again, handed
/// to its waiting connections in turn. A round runs at most ``callsPerRound`` calls of users before only
/// administrators' may run, so that a look costs a bounded amount of work however many users flood: the uids
/// left over go first at the next. An administrator's connection is a principal of its own: it is held to
/// F17's 16 calls in a row, not to a share of its uid, and is never held back by a full round.
///
/// Without this, a round was 16 calls of every connection with calls waiting: one user with 250 connections
/// made every look cost 4,000 calls, and an administrator's call, answered only once the loop looks at its
/// socket, waited seconds.
///
/// Pure bookkeeping over connection ids and uids: the server runs the connections.
struct Turns {
    /// Calls the connections of one uid, or one administrator's connection, may run in one round (F19), and so one
    /// connection in a row (F17).
    static let callsPerShare = 16
    /// Calls of users one round runs before only administrators' may run (F19): 16 uids' shares.
    static let callsPerRound = 256

    /// Whose share a call counts against.
    enum Principal: Hashable {
        /// The connections of a uid that are not an administrator's, all together.
        case user(UInt32)
        /// One administrator's connection, by its id.
        case administrator(UInt64)
    }

    /// One principal's use of the round, and its connections that wait for its next share.
    private struct Share {
        /// The round ``used`` counts in; a share of an earlier round is whole again.
        var round: UInt64 = 0
        var used = 0
        var waiting = CircularBuffer<UInt64>(initialCapacity: 4)
        /// Whether the principal is in ``Turns/order`` or ``Turns/administrators``.
        var queued = false
    }

    private var round: UInt64 = 1
    /// Calls of users (not administrators) run in this round.
    private var runInRound = 0
    private var shares: [Principal: Share] = [:]
    /// The users with connections waiting, in the order their shares come.
    private var order = CircularBuffer<UInt32>(initialCapacity: 16)
    /// Administrators' connections that wait, in the order they asked.
    private var administrators = CircularBuffer<UInt64>(initialCapacity: 4)

    /// Calls run since the server started, every connection's (a figure for `Admin.Status`).
    private(set) var callsRun: UInt64 = 0

    /// Whether no connection waits for a turn.
    var isEmpty: Bool { order.isEmpty && administrators.isEmpty }

    /// Whether this round has run ``callsPerRound`` calls of users: from now on only administrators' run.
    var isRoundFull: Bool { runInRound >= Self.callsPerRound }

    /// Counts a call of `principal`, if it may run now.
    /// - Returns: `false` when the principal has used its share of this round, or the round is full and it is a
    ///   user: the call waits (``wait(_:as:)``).
    mutating func take(_ principal: Principal) -> Bool {
        var share = shares[principal] ?? Share()
        if share.round != round {
            share.round = round
            share.used = 0
        }
        let user: Bool
        if case .user = principal { user = true } else { user = false }
        guard share.used < Self.callsPerShare, !(user && isRoundFull) else {
            shares[principal] = share
            return false
        }
        share.used += 1
        shares[principal] = share
        if user { runInRound += 1 }
        callsRun += 1
        return true
    }

    /// `connection` has calls that may not run in this round: it gets its turn in a later one, first if it is an
    /// administrator's, else in its uid's turn.
    mutating func wait(_ connection: UInt64, as principal: Principal) {
        var share = shares[principal] ?? Share()
        switch principal {
        case .administrator:
            administrators.append(connection)
        case .user(let uid):
            share.waiting.append(connection)
            if !share.queued {
                share.queued = true
                order.append(uid)
            }
        }
        shares[principal] = share
    }

    /// Starts the next round: every share is whole again.
    /// - Returns: how many administrators' connections and how many users wait, to serve in that order with
    ///   ``nextAdministrator()``, ``nextUser()`` and ``nextConnection(of:)``; whatever waits again meanwhile is
    ///   for the round after.
    mutating func beginRound() -> (administrators: Int, users: Int) {
        round += 1
        runInRound = 0
        return (administrators.count, order.count)
    }

    mutating func nextAdministrator() -> UInt64? {
        administrators.popFirst()
    }

    /// The uid whose share comes next, taken out of the order (``requeue(_:)`` puts it back at the end if its
    /// connections still wait); `nil` once the round is full.
    mutating func nextUser() -> UInt32? {
        guard !isRoundFull, let uid = order.popFirst() else { return nil }
        shares[.user(uid)]?.queued = false
        return uid
    }

    /// The next waiting connection of the user `uid`, while its share and the round have room.
    mutating func nextConnection(of uid: UInt32) -> UInt64? {
        guard !isRoundFull, var share = shares[.user(uid)], !share.waiting.isEmpty else { return nil }
        guard share.round != round || share.used < Self.callsPerShare else { return nil }
        let connection = share.waiting.removeFirst()
        shares[.user(uid)] = share
        return connection
    }

    /// How many of the user `uid`'s connections wait.
    func waiting(of uid: UInt32) -> Int {
        shares[.user(uid)]?.waiting.count ?? 0
    }

    /// Puts the user `uid` back at the end of the order if its connections still wait and it is not there already.
    mutating func requeue(_ uid: UInt32) {
        guard var share = shares[.user(uid)], !share.waiting.isEmpty, !share.queued else { return }
        share.queued = true
        shares[.user(uid)] = share
        order.append(uid)
    }

    /// `principal` holds no connection any more: its share is forgotten (a connection of it still waiting is
    /// closed, and skipped when its turn comes).
    mutating func forget(_ principal: Principal) {
        guard let share = shares[principal], !share.queued else { return }
        shares[principal] = nil
    }
}
