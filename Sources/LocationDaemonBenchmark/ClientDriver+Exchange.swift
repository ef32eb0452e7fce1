extension ClientDriver {
    /// Sends every call at once (pipelined where several share a connection) and waits for each one's
    /// first reply; an error reply, or a connection closed with calls unanswered, fails the scenario.
    /// - Returns: the replies, in the order of `calls`.
    @discardableResult
    func exchange(_ calls: [(connection: Int, bytes: [UInt8])], timeout: Double, what: String) throws -> [[UInt8]] {
        var queues: [Int: [Int]] = [:]
        for (position, call) in calls.enumerated() { queues[call.connection, default: []].append(position) }
        var heads: [Int: Int] = [:]
        var replies = [[UInt8]](repeating: [], count: calls.count)
        var remaining = calls.count
        var failure: String?
        onFrame = { connection, frame in
            let head = heads[connection, default: 0]
            guard let queue = queues[connection], head < queue.count else { return }
            heads[connection] = head + 1
            replies[queue[head]] = Array(frame)
            remaining -= 1
            if failure == nil, let name = Wire.error(in: frame) {
                failure = "\(what) answered \(name): \(String(decoding: frame, as: UTF8.self).prefix(300))"
            }
        }
        onClose = { connection in
            if heads[connection, default: 0] < queues[connection]?.count ?? 0 {
                throw BenchError.failed("locd closed a connection with \(what) unanswered")
            }
        }
        for call in calls { try send(call.connection, call.bytes) }
        try run(until: { remaining == 0 || failure != nil }, timeout: timeout, what: what)
        if let failure { throw BenchError.failed(failure) }
        return replies
    }

    /// Connects `count` clients, each saying `Hello` as the app `appID(index)`; returns their indices.
    func helloClients(path: String, count: Int, timeout: Double, appID: (Int) -> String) throws -> [Int] {
        var clients: [Int] = []
        clients.reserveCapacity(count)
        for _ in 0..<count { clients.append(try connect(path: path)) }
        try exchange(
            clients.enumerated().map { ($1, Wire.hello(appID($0))) },
            timeout: timeout,
            what: "Hello"
        )
        return clients
    }

    /// Authorizes each app `whileUsing` from the admin connection (each call stored before its reply).
    func authorize(admin: Int, apps: [String], timeout: Double) throws {
        try exchange(
            apps.map { (admin, Wire.setAuthorization($0, "whileUsing")) },
            timeout: timeout,
            what: "SetAuthorization"
        )
    }
}
