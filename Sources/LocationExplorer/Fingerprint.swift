import LocationCore

/// A state's canonical fingerprint: 128 bits of hash over what the core shows of itself (records, app states, in
/// use, sessions and their masks, queued prompts, deadlines) and the world around it, with every instant taken
/// relative to now and ids replaced by their order. Users are interchangeable (they have the same apps), so the
/// smallest encoding over their permutations is hashed; clients are put in a canonical order by what they hold.
package struct Fingerprint: Hashable, Sendable {
    var high: Int
    var low: Int

    init(_ words: [Int64]) {
        var first = Hasher()
        var second = Hasher()
        first.combine(words)
        second.combine(0x5EED)
        second.combine(words)
        high = first.finalize()
        low = second.finalize()
    }
}

extension ModelState {
    package var fingerprint: Fingerprint { fingerprint(CoreReading(self)) }

    /// The fingerprint, from a reading of this state's core.
    package func fingerprint(_ reading: CoreReading) -> Fingerprint { Fingerprint(canonicalEncoding(reading)) }

    /// The smallest encoding over the permutations of users (all of them for up to three users).
    package var canonicalEncoding: [Int64] { canonicalEncoding(CoreReading(self)) }

    func canonicalEncoding(_ reading: CoreReading) -> [Int64] {
        let permutations = size.users <= 3 ? Self.permutations(size.users) : [Array(0..<size.users)]
        var best: [Int64]?
        for order in permutations {
            let words = encoding(users: order, reading: reading)
            if let current = best, !words.lexicographicallyPrecedes(current) { continue }
            best = words
        }
        return best ?? []
    }

    /// The encoding with user `u` renamed `order[u]`.
    func encoding(users order: [Int], reading: CoreReading) -> [Int64] {
        var words: [Int64] = [
            core.locationServicesEnabled ? 1 : 0, core.isProviderRunning ? 1 : 0, core.providerReportsFix ? 1 : 0,
            relative(armed),
        ]
        // Sessions by their rank in id order.
        let ranks = reading.sessions.map(\.id)
        // Clients by what they hold, so that two processes holding the same are one state whichever is which.
        let blocks = clients.indices.map { client in (client, clientBlock(client, users: order, ranks: ranks)) }
            .sorted { $0.1.lexicographicallyPrecedes($1.1) }
        // The canonical position of each client, by client number.
        var canonicalClient = [Int64](repeating: -1, count: clients.count)
        for (position, block) in blocks.enumerated() {
            canonicalClient[block.0] = Int64(position)
            words += block.1
        }
        let inverse = order.indices.sorted { order[$0] < order[$1] }
        for user in inverse {
            words.append(store.usersWithServicesOff.contains(keys[user][0].user ?? 0) ? 1 : 0)
            for app in 0..<size.apps {
                appBlock(
                    reading.app(app, user: user, of: size),
                    reading: reading,
                    owners: canonicalClient,
                    into: &words
                )
            }
        }
        return words
    }

    private func clientBlock(_ client: Int, users order: [Int], ranks: [SessionID]) -> [Int64] {
        let slot = clients[client]
        guard slot.isConnected else { return [-1] }
        var words: [Int64] = [Int64(slot.app), Int64(order[slot.user]), slot.stream == nil ? 0 : 1]
        let held = slot.sessions.compactMap { id in ranks.firstIndex(of: id).map(Int64.init) }
        words.append(Int64(held.count))
        words += held
        return words
    }

    private func appBlock(_ app: AppReading, reading: CoreReading, owners: [Int64], into words: inout [Int64]) {
        let key = app.key
        words.append(app.state.map { Int64(AppState.allCases.firstIndex(of: $0)!) } ?? -1)
        words.append(app.inUse ? 1 : 0)
        if let record = app.record {
            words += [
                Int64(record.status.code), record.provisional ? 1 : 0, record.oneTime ? 1 : 0,
                record.accuracy == .fullAccuracy ? 1 : 0, record.temporaryFullAccuracy ? 1 : 0,
                Int64(AlwaysDecision.allCases.firstIndex(of: record.alwaysDecision)!),
            ]
        } else {
            words.append(-1)
        }
        if let stored = store.apps.first(where: { $0.app == key }) {
            words += [relative(stored.graceEnds), relative(stored.relaunchEnds), stored.inUseAtTermination ? 1 : 0]
        } else {
            words.append(-2)
        }
        words.append(Int64(app.queue.count))
        for prompt in app.queue {
            words += [
                Int64(PromptKind.allCases.firstIndex(of: prompt.kind)!), prompt.purposeKey == nil ? 0 : 1,
                relative(prompt.raisedAt),
            ]
        }
        for session in reading.sessions where session.appID == key.appID && session.user == key.user {
            let owner =
                store.sessions.first { $0.id == session.id }.flatMap { stored in
                    clients.indices.first { pid(of: $0) == stored.ownerPID }.map { owners[$0] }
                } ?? -1
            words += [
                Int64(SessionKind.allCases.firstIndex(of: session.kind)!),
                Int64(Requirement.allCases.firstIndex(of: session.requirement)!), session.purposeKey == nil ? 0 : 1,
                Int64(SessionState.allCases.firstIndex(of: session.state)!), Int64(session.diagnostic.rawValue),
                relative(session.deadline), owner,
            ]
        }
        words.append(-3)
    }

    /// Milliseconds from now, or a marker for none.
    func relative(_ instant: Instant?) -> Int64 {
        guard let instant else { return Int64.min }
        return instant.since(now).nanoseconds / 1_000_000
    }

    static func permutations(_ count: Int) -> [[Int]] {
        guard count > 1 else { return [Array(0..<count)] }
        return permutations(count - 1).flatMap { smaller in
            (0...smaller.count).map { position in
                var order = smaller
                order.insert(count - 1, at: position)
                return order
            }
        }
    }
}
