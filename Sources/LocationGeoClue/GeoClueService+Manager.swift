extension GeoClueService {
    /// `GetClient` (`reuse`: the peer's latest client if it has one) and `CreateClient` (always a new one).
    func getClient(_ call: BusMessage, reuse: Bool) -> Int32 {
        guard let sender = call.sender else {
            call.reply(.failed("a call without a sender: connect through the bus"))
            return 1
        }
        if reuse, let path = peers[sender]?.clients.last {
            call.reply(objectPath: path)
            return 1
        }
        if clients.count >= limits.clients {
            call.reply(.limitsExceeded("locd-geoclue serves \(limits.clients) clients at most: delete unused ones"))
            return 1
        }
        if (peers[sender]?.clients.count ?? 0) >= limits.clientsPerPeer {
            call.reply(
                .limitsExceeded(
                    "a peer may hold \(limits.clientsPerPeer) clients at most: call DeleteClient on unused ones"
                )
            )
            return 1
        }
        guard let client = makeClient(owner: sender) else {
            call.reply(.failed("locd-geoclue could not export a client object: see its log"))
            return 1
        }
        call.reply(objectPath: client.path)
        return 1
    }

    /// `DeleteClient(path)`: the caller's own client ends (its locd session too); anyone else's is left alone, as
    /// GeoClue does.
    func deleteClient(_ call: BusMessage) -> Int32 {
        guard let path = call.readString("o") else {
            call.reply(.invalidArgs("DeleteClient takes the client's object path"))
            return 1
        }
        if let client = clients[path], client.owner == call.sender {
            remove(client, endingSession: true)
            closeUnusedApps(of: client.owner, after: client.lastRun)
        }
        call.replyEmpty()
        return 1
    }

    /// The peer left the bus: its clients go, and its locd connections close without `Goodbye`, so the sessions
    /// they own linger for locd's relaunch window (SEMANTICS L3).
    func peerLeft(_ name: String) {
        if let agent = agents[name] { forget(agent) }
        uids[name] = nil
        guard let peer = peers.removeValue(forKey: name) else { return }
        var runs: [ClientRun] = []
        for path in peer.clients {
            guard let client = clients[path] else { continue }
            if let run = client.lastRun { runs.append(run) }
            remove(client, endingSession: false)
        }
        let apps = Array(peer.apps.values)
        logger.debug("peer left", metadata: ["geoclue.peer": "\(name)", "geoclue.clients": "\(peer.clients.count)"])
        Task {
            for run in runs { await run.finished() }
            for app in apps { await app.close() }
        }
    }

    /// Closes the peer's locd connections that none of its clients speaks through any more, once `run` is over.
    func closeUnusedApps(of owner: String, after run: ClientRun?) {
        guard let peer = peers[owner] else { return }
        let used = Set(peer.clients.compactMap { clients[$0]?.runApp })
        let unused = peer.apps.filter { !used.contains($0.key) }
        guard !unused.isEmpty else { return }
        for appID in unused.keys { peer.apps[appID] = nil }
        if peer.clients.isEmpty && peer.apps.isEmpty { peers[owner] = nil }
        Task {
            await run?.finished()
            for app in unused.values { await app.close() }
        }
    }
}
