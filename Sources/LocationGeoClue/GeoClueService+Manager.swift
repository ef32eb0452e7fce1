import ProcessIdentity

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
        // A peer the bus names no uid for shares one count with every other such peer.
        let uid = uid(of: sender) ?? UInt32.max
        if clientsByUID[counted(uid), default: 0] >= limits.clientsPerUID {
            call.reply(
                .limitsExceeded(
                    "\(countedName(uid)) holds \(limits.clientsPerUID) clients, the most one user's programs may: "
                        + "call DeleteClient on unused ones"
                )
            )
            return 1
        }
        guard let client = makeClient(owner: sender, uid: uid) else {
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
        // Answered first: ending the session is a write to locd, which the caller need not wait for.
        call.replyEmpty()
        if let client = clients[path], client.owner == call.sender {
            remove(client, endingSession: true)
            closeUnusedApps(of: client.owner)
        }
        return 1
    }

    /// The peer left the bus: its clients go, and its locd connections close without `Goodbye`, so the sessions
    /// they own linger for locd's relaunch window (SEMANTICS L3).
    /// I14: `name` has just connected; a process that starts after this is not the one that opened its connection.
    func peerAppeared(_ name: String) {
        let now = ProcessFacts.ticksSinceBoot()
        guard appearedAt.count < limits.appearedNames else {
            // Unrecorded, it is judged by when the last name went unrecorded: no later than it connected.
            unrecordedBy = now
            return
        }
        appearedAt[name] = now
    }

    func peerLeft(_ name: String) {
        if let agent = agents[name] { forget(agent) }
        appearedAt[name] = nil
        uids[name] = nil
        guard let peer = peers.removeValue(forKey: name) else { return }
        var runs = Array(peer.lastRuns.values)
        for path in peer.clients {
            guard let client = clients[path] else { continue }
            if let run = client.lastRun { runs.append(run) }
            remove(client, endingSession: false)
        }
        logger.debug("peer left", metadata: ["geoclue.peer": "\(name)", "geoclue.clients": "\(peer.clients.count)"])
        close(Array(peer.apps.values), after: runs)
    }

    /// Closes `apps` once every one of `runs` has finished: a run that ends its session ends it on its app's
    /// connection rather than leaving it to linger.
    private func close(_ apps: [LocdApp], after runs: [ClientRun]) {
        let unfinished = runs.filter { !$0.isFinished }
        var left = unfinished.count
        let closeAll = { for app in apps { app.close() } }
        guard left > 0 else { return closeAll() }
        for run in unfinished {
            run.afterFinishing {
                left -= 1
                if left == 0 { closeAll() }
            }
        }
    }

    /// A client of the peer went: the locd connections that none of its clients speaks through any more are left
    /// idle, and close once idle for ``GeoClueLimits/idleAppSeconds`` unless a new client takes one up.
    func closeUnusedApps(of owner: String) {
        guard let peer = peers[owner] else { return }
        let used = Set(peer.clients.compactMap { clients[$0]?.runApp })
        let now = ContinuousClock.now
        for appID in peer.apps.keys where !used.contains(appID) && peer.idleSince[appID] == nil {
            peer.idleSince[appID] = now
        }
        setIdleTimer(peer)
    }

    /// Sets the peer's timer for its first idle connection's due instant, unless it is set; when it fires it closes
    /// what is due and sets itself again for what is left.
    private func setIdleTimer(_ peer: GeoCluePeer) {
        guard !peer.idleTimerSet, let first = peer.idleSince.values.min() else { return }
        peer.idleTimerSet = true
        connection.at(first.advanced(by: .seconds(limits.idleAppSeconds))) { [self] in
            peer.idleTimerSet = false
            guard peers[peer.name] === peer else { return }
            closeIdleApps(of: peer.name, idleFor: limits.idleAppSeconds)
            setIdleTimer(peer)
        }
    }

    /// Closes the peer's locd connections idle for `seconds` or more, each once its latest run has ended its
    /// session on it; the peer is forgotten when nothing of it is left.
    func closeIdleApps(of owner: String, idleFor seconds: Double) {
        guard let peer = peers[owner] else { return }
        let now = ContinuousClock.now
        let idle = peer.idleSince.filter { $0.value.advanced(by: .seconds(seconds)) <= now }.map(\.key)
        guard !idle.isEmpty else { return }
        var closing: [LocdApp] = []
        var runs: [ClientRun] = []
        for appID in idle {
            peer.idleSince[appID] = nil
            if let app = peer.apps.removeValue(forKey: appID) { closing.append(app) }
            if let run = peer.lastRuns.removeValue(forKey: appID) { runs.append(run) }
        }
        if peer.clients.isEmpty && peer.apps.isEmpty { peers[owner] = nil }
        logger.debug(
            "closing idle locd connections",
            metadata: ["geoclue.peer": "\(owner)", "geoclue.apps": "\(idle)"]
        )
        close(closing, after: runs)
    }
}
