import LocationProtocol
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// The loop-bound heart of a server: connections, `org.varlink.service`, and routing to the delegate.
final class VarlinkServerCore {
    weak var delegate: VarlinkServerDelegate?
    let info: VarlinkServiceInfo
    let interfaces: [(name: String, description: String)]
    let limits: VarlinkLimits
    /// The error a connection refused by a limit is answered with (F10, F11), of the served interface.
    let limitExceededError: String
    let logger: (String) -> Void
    private var nextID: UInt64 = 1
    private(set) var connections: [UInt64: VarlinkConnection] = [:]
    let eventLoop: EventLoop
    /// Connections written to in this event-loop turn, flushed together after it.
    private var unflushed: [VarlinkConnection] = []
    private var unflushedIDs: Set<UInt64> = []
    /// Whether a peer may use the admin reserve and is free of the per-uid limit (F12); asked only of a peer
    /// the ordinary limits would refuse, from the credentials fixed when it connected.
    var isPrivileged: (PeerCredentials) -> Bool = { $0.uid == 0 || $0.uid == geteuid() }
    /// The uid the per-uid limit and the turns count a uid against: the user a subordinate uid is delegated to
    /// (SEMANTICS H9), else the uid itself. Read at each admission, so a reload's delegation applies to the next.
    var accountUID: (UInt32) -> UInt32 = { $0 }
    /// The uid of every admitted connection as counted (``accountUID``), by connection id (a peer without
    /// credentials counts as `UInt32.max`).
    private var admitted: [UInt64: UInt32] = [:]
    /// Admitted connections per uid as counted.
    private var heldByUID: [UInt32: Int] = [:]
    /// The idle-timeout timers of admitted connections that have not sent a call yet (F13).
    private var silent: [UInt64: Scheduled<Void>] = [:]
    /// Refusals, idle closes and failed accepts come in floods: one line per kind and interval (F10, F15).
    private var floodLog = RateLimitedLog(interval: .seconds(10))

    var maximumWriteBuffer: Int { limits.maximumWriteBuffer }

    init(
        info: VarlinkServiceInfo,
        interfaces: [(name: String, description: String)],
        limits: VarlinkLimits,
        limitExceededError: String,
        eventLoop: EventLoop,
        logger: @escaping (String) -> Void
    ) {
        self.info = info
        self.interfaces = interfaces
        self.limits = limits
        self.limitExceededError = limitExceededError
        self.eventLoop = eventLoop
        self.logger = logger
    }

    func log(_ message: String) { logger(message) }

    /// Rings for the next round of ``turns`` (F17, F19); `nil` until the server listens.
    var turnBell: TurnBell?
    /// Who runs calls, and how many, in each round of the loop (F17, F19).
    private var turns = Turns()
    /// Whether the next round is already asked for.
    private var bellRung = false

    /// Calls run since the server started, on every connection (`org.varlink.service`'s and malformed ones
    /// included): how busy it is, and, read twice, how many calls ran in between.
    var callsRun: UInt64 { turns.callsRun }

    /// Counts a call of `connection` if it may run now (F19): its principal has not used its share of this round,
    /// and the round has room or the connection is an administrator's.
    func mayRun(_ connection: VarlinkConnection) -> Bool {
        turns.take(principal(of: connection))
    }

    /// `connection` has calls waiting that may not run in this round: they run in a later one, once the loop has
    /// looked at its sockets (F17, F19).
    func awaitTurn(_ connection: VarlinkConnection) {
        turns.wait(connection.id, as: principal(of: connection))
        ringBell()
    }

    private func ringBell() {
        guard !bellRung else { return }
        bellRung = true
        if let turnBell {
            turnBell.ring()
        } else {
            eventLoop.assumeIsolated().execute { [self] in nextTurn() }
        }
    }

    /// The next round (F19): administrators' waiting connections first, then each waiting user's share, handed to
    /// its waiting connections in turn, until the round is full. What waits again, or is left, goes on at the next.
    func nextTurn() {
        bellRung = false
        let waiting = turns.beginRound()
        for _ in 0..<waiting.administrators {
            guard let id = turns.nextAdministrator() else { break }
            connections[id]?.takeTurn()
        }
        for _ in 0..<waiting.users {
            guard let uid = turns.nextUser() else { break }
            for _ in 0..<turns.waiting(of: uid) {
                guard let id = turns.nextConnection(of: uid) else { break }
                connections[id]?.takeTurn()
            }
            turns.requeue(uid)
            if heldByUID[uid] == nil { turns.forget(.user(uid)) }
        }
        if !turns.isEmpty { ringBell() }
    }

    /// Whose share `connection`'s calls count against (F19): its own if it is an administrator's (F12, from the
    /// credentials fixed when it connected; asked once, at its first call), else its uid's. A broker's connection
    /// speaking for a process counts as that process's uid, never as an administrator's.
    private func principal(of connection: VarlinkConnection) -> Turns.Principal {
        if let known = connection.principal { return known }
        let principal: Turns.Principal =
            isAdministrator(connection) ? .administrator(connection.id) : .user(admitted[connection.id] ?? .max)
        connection.principal = principal
        return principal
    }

    /// Whether `connection`'s peer is an administrator (F12), asked of `isPrivileged` at most once.
    private func isAdministrator(_ connection: VarlinkConnection) -> Bool {
        if let known = connection.isAdministrator { return known }
        let administrator = connection.credentials.map(isPrivileged) ?? false
        connection.isAdministrator = administrator
        return administrator
    }

    /// Flushes `connection` once, after the tasks and reads already queued on the loop: every frame the
    /// turn writes to it leaves in one system call.
    func needsFlush(_ connection: VarlinkConnection) {
        guard unflushedIDs.insert(connection.id).inserted else { return }
        unflushed.append(connection)
        guard unflushed.count == 1 else { return }
        eventLoop.assumeIsolated().execute { [self] in flushAll() }
    }

    private func flushAll() {
        // A flush can complete at once and write a held backlog, which asks for the next flush.
        let batch = unflushed
        unflushed.removeAll(keepingCapacity: true)
        unflushedIDs.removeAll(keepingCapacity: true)
        for connection in batch { connection.flush() }
    }

    /// Connections accepted whose credentials are still being read; they are admitted or refused at once.
    private static let maximumUnadmitted = 16

    /// A new connection, not yet admitted: ``admit(_:)`` decides once its credentials are read. `nil` (it is
    /// closed at once) only if connections pile up unadmitted, which a working loop never lets happen.
    func accept(_ channel: Channel) -> VarlinkConnection? {
        guard connections.count - admitted.count < Self.maximumUnadmitted else {
            log("refusing a connection: \(connections.count - admitted.count) connections wait for their credentials")
            return nil
        }
        let connection = VarlinkConnection(id: nextID, channel: channel, server: self)
        nextID += 1
        connections[connection.id] = connection
        return connection
    }

    /// Admits a connection whose credentials are read, or refuses it (F10–F12): past `max-connections`, or past
    /// `max-connections-per-uid` for its uid, only a privileged peer gets in, and then only up to
    /// `max-connections` + `admin-reserve`. A refused peer gets ``limitExceededError`` and is closed.
    /// - Returns: whether the connection may be served.
    func admit(_ connection: VarlinkConnection) -> Bool {
        let peer = connection.credentials?.uid ?? .max
        let uid = peer == .max ? peer : accountUID(peer)
        let held = heldByUID[uid, default: 0]
        let total = admitted.count
        let ordinary = total < limits.maximumConnections && held < limits.maximumConnectionsPerUID
        if !ordinary {
            let privileged = isAdministrator(connection)
            guard privileged && total < limits.maximumConnections + limits.adminReserve else {
                refuse(connection, uid: peer, counted: uid, held: held, total: total, privileged: privileged)
                return false
            }
        }
        admitted[connection.id] = uid
        heldByUID[uid] = held + 1
        let id = connection.id
        silent[id] = eventLoop.assumeIsolated().scheduleTask(in: limits.idleTimeout) { [self] in
            closeSilent(id)
        }
        return true
    }

    private func refuse(
        _ connection: VarlinkConnection,
        uid: UInt32,
        counted: UInt32,
        held: Int,
        total: Int,
        privileged: Bool
    ) {
        let pid = connection.credentials?.pid ?? 0
        let error = limitExceeded(
            uid: uid,
            counted: counted,
            pid: "pid \(pid)",
            held: held,
            total: total,
            privileged: privileged
        )
        var text = ""
        VarlinkReply(error: error).write(to: &text)
        connections.removeValue(forKey: connection.id)
        connection.write(text)
        connection.close()
    }

    /// A broker's connection speaks, from its `Hello` on, for a process of `uid` (SEMANTICS I8): it counts as one of
    /// that uid's connections, held to the ordinary limits (F10, F11) whatever the broker's own uid. A broker lends
    /// the apps behind it neither its privilege (F12) nor the room of its uid, so one user's apps cannot take, through
    /// a broker, the connections every other user's apps need.
    /// - Returns: the error the connection is refused with, past `max-connections-per-uid` for `uid` or past
    ///   `max-connections` (the caller answers with it and closes the connection); `nil` when it now counts as
    ///   `uid`'s.
    func attribute(_ connection: VarlinkConnection, to process: UInt32, pid: Int32) -> VarlinkError? {
        guard let current = admitted[connection.id] else { return nil }
        let uid = accountUID(process)
        // What the others hold: this connection is counted already, under the broker's uid.
        let held = heldByUID[uid, default: 0] - (current == uid ? 1 : 0)
        let total = admitted.count - 1
        guard held < limits.maximumConnectionsPerUID && total < limits.maximumConnections else {
            let through = "pid \(pid), through the broker of pid \(connection.credentials?.pid ?? 0)"
            return limitExceeded(
                uid: process,
                counted: uid,
                pid: through,
                held: held,
                total: total,
                privileged: false
            )
        }
        release(uid: current)
        heldByUID[uid] = held + 1
        admitted[connection.id] = uid
        if case .administrator(let id) = connection.principal { turns.forget(.administrator(id)) }
        connection.principal = .user(uid)
        return nil
    }

    /// The error of a refusal by F10 or F11, with what to do, logged as F16 says.
    /// - Parameters:
    ///   - uid: the peer's uid; `counted`, the uid it counts against (H9: its user, for a subordinate uid).
    private func limitExceeded(
        uid: UInt32,
        counted: UInt32,
        pid: String,
        held: Int,
        total: Int,
        privileged: Bool
    ) -> VarlinkError {
        let perUID = !privileged && held >= limits.maximumConnectionsPerUID
        let limit: String
        let maximum: Int
        let message: String
        // H9: a subordinate uid counts with the user it is delegated to.
        let holder =
            counted == uid
            ? "uid \(uid) already holds"
            : "uid \(uid) counts as uid \(counted), whose subordinate uid it is (/etc/subuid): they already hold"
        if perUID {
            limit = "max-connections-per-uid"
            maximum = limits.maximumConnectionsPerUID
            message =
                "\(holder) \(held) connections to \(info.product), the most max-connections-per-uid allows: "
                + "close connections you do not use, or ask the administrator to raise [limits] max-connections-per-uid"
        } else {
            limit = "max-connections"
            maximum = privileged ? limits.maximumConnections + limits.adminReserve : limits.maximumConnections
            message =
                "\(info.product) already holds \(total) connections, the most max-connections allows: try again later, "
                + "or ask the administrator to raise [limits] max-connections (and \(info.product)'s open-file limit)"
        }
        logFlood(limit) {
            "refusing a connection from uid \(uid) (\(pid)): \(limit) is \(maximum) "
                + "(\(held) held by \(counted == uid ? "the uid" : "uid \(counted) with its subordinate uids"), "
                + "\(total) in all)"
        }
        return VarlinkError(
            name: limitExceededError,
            parameters: ["limit": .string(limit), "maximum": .int(Int64(maximum)), "message": .string(message)]
        )
    }

    /// The connection sent a call: it is no longer silent, so the idle timeout no longer applies (F13).
    func heard(from connection: VarlinkConnection) {
        silent.removeValue(forKey: connection.id)?.cancel()
    }

    private func closeSilent(_ id: UInt64) {
        guard silent.removeValue(forKey: id) != nil, let connection = connections[id] else { return }
        let uid = admitted[id] ?? .max
        logFlood("idle-timeout") {
            "closing connection \(id) of uid \(uid): no call within idle-timeout (\(Self.describe(limits.idleTimeout))) "
                + "of connecting"
        }
        connection.close()
    }

    /// `accept` failed (F15): out of descriptors or memory, accepting again at once would only fail again and spin
    /// the loop, so `listener` stops accepting for a while (NIO's `AcceptBackoffHandler` asks this).
    /// - Returns: how long to pause, or `nil` for a peer that went away before it was accepted.
    func acceptFailed(_ error: IOError, listener: Channel) -> TimeAmount? {
        if error.errnoCode == ECONNABORTED || error.errnoCode == EINTR { return nil }
        let pause = TimeAmount.milliseconds(500)
        logFlood("accept") {
            "accepting a connection failed: \(error); pausing accepts for \(Self.describe(pause)) "
                + "with \(connections.count) connections open (raise \(info.product)'s open-file limit "
                + "or lower max-connections)"
        }
        pauseReading(listener, for: pause)
        return pause
    }

    /// Takes the listener off the event loop's watch list for `pause`.
    ///
    /// `AcceptBackoffHandler` delays the next read the pipeline asks for. But a failed accept leaves the channel's
    /// read pending, so it stays registered for readability and the pipeline asks for no read: the connection
    /// still waiting in the listen queue wakes the loop again at once, and it fails again, at full CPU. Turning
    /// `autoRead` off unregisters the listener; turning it on after the pause registers it again.
    private func pauseReading(_ listener: Channel, for pause: TimeAmount) {
        guard let options = listener.syncOptions, (try? options.getOption(.autoRead)) == true else { return }
        try? options.setOption(.autoRead, value: false)
        eventLoop.assumeIsolated().scheduleTask(in: pause) {
            try? listener.syncOptions?.setOption(.autoRead, value: true)
        }
    }

    private func logFlood(_ kind: String, _ message: () -> String) {
        if let line = floodLog.line(kind, at: .now(), message) { log(line) }
    }

    private static func describe(_ amount: TimeAmount) -> String {
        let milliseconds = amount.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    /// Takes one connection from the count of `uid`, forgetting a count that reaches zero.
    private func release(uid: UInt32) {
        let held = heldByUID[uid, default: 1] - 1
        heldByUID[uid] = held > 0 ? held : nil
        if held <= 0 { turns.forget(.user(uid)) }
    }

    func release(_ connection: VarlinkConnection) {
        silent.removeValue(forKey: connection.id)?.cancel()
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        guard let uid = admitted.removeValue(forKey: connection.id) else { return }
        if case .administrator(let id) = connection.principal { turns.forget(.administrator(id)) }
        release(uid: uid)
        delegate?.closed(connection)
    }

    func dispatch(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection) {
        let interface = call.interface
        if interface == InterfaceName.service {
            return serviceCall(call, serial: serial, on: connection)
        }
        guard interfaces.contains(where: { $0.name == interface }) else {
            return connection.fail(serial, .interfaceNotFound(interface))
        }
        guard let delegate else { return connection.fail(serial, .methodNotFound(call.method)) }
        delegate.received(call, serial: serial, on: connection)
    }

    private func serviceCall(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection) {
        switch ServiceMethod(rawValue: call.method) {
        case .getInfo:
            let names = [InterfaceName.service] + interfaces.map(\.name)
            connection.reply(
                serial,
                [
                    "vendor": .string(info.vendor), "product": .string(info.product),
                    "version": .string(info.version), "url": .string(info.url),
                    "interfaces": .array(names.map { .string($0) }),
                ]
            )
        case .getInterfaceDescription:
            guard let name = call.parameters["interface"]?.stringValue else {
                return connection.fail(serial, .invalidParameter("interface", message: "expected an interface name"))
            }
            if name == InterfaceName.service {
                return connection.reply(serial, ["description": .string(VarlinkServer.serviceDescription)])
            }
            guard let interface = interfaces.first(where: { $0.name == name }) else {
                return connection.fail(serial, .interfaceNotFound(name))
            }
            connection.reply(serial, ["description": .string(interface.description)])
        case nil:
            connection.fail(serial, .methodNotFound(call.method))
        }
    }
}
