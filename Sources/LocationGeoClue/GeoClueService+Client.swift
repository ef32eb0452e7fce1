import CSdBus
import LocationClient

extension GeoClueService {
    /// `Start`: answered once locd has decided (authorized: success and `Active`; otherwise `AccessDenied` saying
    /// what to do), or after ``GeoClueLimits/startSeconds`` at the latest (G17), never left hanging.
    func start(_ call: BusMessage, _ client: GeoClueClient) -> Int32 {
        if client.desktopID.isEmpty {
            call.reply(
                .accessDenied(
                    "'DesktopId' property must be set: set it to the app's desktop file id before Start"
                )
            )
            return 1
        }
        if client.active {
            call.replyEmpty()
            return 1
        }
        if let uid = uid(of: client.owner), agentInCharge(of: uid)?.maxAccuracy == AccuracyLevel.none {
            call.reply(.accessDenied(StartRefusal.geolocationDisabled(uid).message))
            return 1
        }
        if client.pendingStarts.count >= limits.pendingStarts || client.unfinishedRuns >= limits.unfinishedRuns {
            call.reply(.limitsExceeded("too many Start and Stop calls in flight: wait for the replies"))
            return 1
        }
        let process: PeerProcess
        do {
            process = try peerProcess(client.owner)
        } catch {
            call.reply(error.error)
            return 1
        }
        let appID = process.appID(desktopID: client.desktopID)
        // Idle connections make room first.
        if needsRoom(client, for: appID) { closeIdleApps(of: client.owner, idleFor: 0) }
        if needsRoom(client, for: appID) {
            call.reply(
                .limitsExceeded(
                    "a peer may speak for \(limits.appsPerPeer) app ids at most: delete the clients of the others first"
                )
            )
            return 1
        }
        let due = ContinuousClock.now.advanced(by: .seconds(limits.startSeconds))
        client.pendingStarts.append(PendingStart(call: call.retained(), due: due))
        connection.at(due) { [weak self, weak client] in
            guard let self, let client, clients[client.path] === client else { return }
            answerOverdueStarts(of: client)
        }
        client.stoppedByAgent = false
        if client.run == nil { launch(client, as: appID, process: process) }
        return 1
    }

    /// Answers the client's `Start` calls that have waited ``GeoClueLimits/startSeconds`` for locd (G17), before the
    /// caller's own D-Bus timeout: its run goes on, so an answer that comes later still starts the client.
    private func answerOverdueStarts(of client: GeoClueClient) {
        let now = ContinuousClock.now
        let overdue = client.pendingStarts.filter { $0.due <= now }
        guard !overdue.isEmpty else { return }
        client.pendingStarts.removeAll { $0.due <= now }
        let app = client.runApp ?? client.desktopID
        let refusal =
            client.run?.isAwaitingPrompt == true
            ? GeoClueError.accessDenied(
                StartRefusal.undecided(app, uid: client.ownerUID, seconds: limits.startSeconds).message
            )
            : GeoClueError.failed(StartRefusal.slow(app, seconds: limits.startSeconds).message)
        for start in overdue {
            start.call.reply(refusal)
            start.call.release()
        }
        logger.notice(
            "Start answered before locd decided: \(refusal.message)",
            metadata: ["geoclue.client": "\(client.path)"]
        )
    }

    /// Whether a `Start` of `client` as `appID` needs a locd connection its peer has no room for (G8).
    private func needsRoom(_ client: GeoClueClient, for appID: String) -> Bool {
        guard client.run == nil, let peer = peers[client.owner], peer.apps[appID] == nil else { return false }
        return peer.apps.count >= limits.appsPerPeer
    }

    /// `Stop`: the locd session ends; `Active` turns false.
    func stop(_ call: BusMessage, _ client: GeoClueClient) -> Int32 {
        // Answered first: ending the session is a write to locd, which the caller need not wait for.
        call.replyEmpty()
        client.stoppedByAgent = false
        halt(client, endingSession: true, reason: "Stop came before locd decided: call Start again")
        return 1
    }

    /// The process of the peer `owner`, from the bus at its first `Start` (SEMANTICS I9, I12).
    private func peerProcess(_ owner: String) throws(StartRefusal) -> PeerProcess {
        let peer = peer(owner)
        if let process = peer.process { return process }
        let process = try PeerProcess.of(owner, on: bus, connectedBy: appearedAt[owner] ?? unrecordedBy)
        peer.process = process
        return process
    }

    /// Starts the run of a `Start`: the locd session of `appID`, spoken for `process`; the decision; the updates.
    func launch(_ client: GeoClueClient, as appID: String, process: PeerProcess) {
        let peer = peer(client.owner)
        let app: LocdApp
        peer.idleSince[appID] = nil
        if let open = peer.apps[appID], open.isUsable {
            app = open
        } else {
            // One closed here, or whose Hello locd refused: the peer's clients of the app start on a new one.
            peer.apps[appID]?.close()
            app = LocdApp(appID: appID, socketPath: socketPath, process: process, bus: connection)
            peer.apps[appID] = app
            logger.debug(
                "a locd connection for the peer's app",
                metadata: ["geoclue.peer": "\(client.owner)", "geoclue.app": "\(appID)"]
            )
        }
        let path = client.path
        let run = ClientRun(
            app: app,
            accuracy: servedAccuracy(client),
            decided: { [self] run, outcome in decided(path, run, outcome) },
            deliver: { [self] run, fix in deliver(fix, to: path, run) }
        )
        peer.lastRuns[appID] = run
        let previous = client.lastRun
        client.run = run
        client.lastRun = run
        client.runApp = appID
        client.unfinishedRuns += 1
        run.afterFinishing { [self] in clients[path]?.unfinishedRuns -= 1 }
        run.start(after: previous)
        askWaitingPrompts()
    }

    /// Street and exact levels ask for what the grant allows (`nil`), unless the uid's agent allows less (G2, G12);
    /// lower levels ask for the grid cell.
    func servedAccuracy(_ client: GeoClueClient) -> LocationUpdate.DesiredAccuracy? {
        let agentLevel = agentInCharge(of: client.ownerUID)?.maxAccuracy ?? AccuracyLevel.exact
        return AccuracyLevel.wantsFullAccuracy(min(client.requestedAccuracy, agentLevel)) ? nil : .reduced
    }

    /// locd decided a run's `Start`, or told how a started client's location stands (G16).
    private func decided(_ path: String, _ run: ClientRun, _ outcome: ClientRun.Outcome) {
        guard let client = clients[path], client.run === run else { return }
        switch outcome {
        case .withheld(let refusal):
            // G16: the client stays started and hears nothing until its location comes back, by itself.
            logger.notice(
                """
                no location for the client for now: \(refusal.message); it stays started and gets updates again by \
                itself once that changes
                """,
                metadata: ["geoclue.client": "\(path)"]
            )
            return
        case .resumed:
            logger.info("location back for the client", metadata: ["geoclue.client": "\(path)"])
            return
        case .authorized, .refused: break
        }
        // The decision of a Start: the calls waiting for it hear it.
        let waiting = client.pendingStarts.map(\.call)
        client.pendingStarts = []
        switch outcome {
        case .authorized:
            client.active = true
            for call in waiting { call.replyEmpty() }
            emitClientChanged(client, ["Active"])
            updateInUse()
            // Debug: locd's journal already records the session, with the app (LOCD_APP); a line per Start here
            // would double it, under a program that starts and stops often.
            logger.debug(
                "client started",
                metadata: ["geoclue.client": "\(path)", "geoclue.app": "\(client.desktopID)"]
            )
        case .refused(let refusal) where client.active:
            // What G16 keeps as a real stop (locd ended the session, refused the stream or the app's Hello): the
            // client stops as Stop stops it.
            client.run = nil
            client.active = false
            emitClientChanged(client, ["Active"])
            updateInUse()
            logger.notice(
                "client stopped: \(refusal.message); it gets updates again once its program calls Start",
                metadata: ["geoclue.client": "\(path)"]
            )
        case .refused(let refusal):
            client.run = nil
            for call in waiting { call.reply(refusal.error) }
            logger.info("client refused: \(refusal.message)", metadata: ["geoclue.client": "\(path)"])
        case .withheld, .resumed: break
        }
        for call in waiting { call.release() }
    }

    /// A fix for a started client: a new Location object and `LocationUpdated(old, new)` to its owner only, unless
    /// the thresholds hold it back.
    private func deliver(_ fix: GeoClueFix, to path: String, _ run: ClientRun) {
        guard let client = clients[path], client.run === run, client.active else { return }
        if let current = client.location,
            fix.isBelowThreshold(after: current.fix, distance: client.distanceThreshold, time: client.timeThreshold)
        {
            return
        }
        guard let location = makeLocation(fix, of: client) else { return }
        let old = client.locationPath
        if let previous = client.location { retire(previous.path, of: client) }
        client.location = location
        emitClientChanged(client, ["Location"])
        let result = csdbus_emit_signal_oo(
            bus,
            client.owner,
            path,
            Self.clientInterface,
            "LocationUpdated",
            old,
            location.path
        )
        if result < 0 {
            logger.warning("cannot send LocationUpdated to \(client.owner): \(BusFailure(doing: "", code: result))")
        }
    }

    /// Ends a client's run: the pending `Start`s fail with `reason`, `Active` turns false.
    func halt(_ client: GeoClueClient, endingSession: Bool, reason: String) {
        stopRun(of: client, endingSession: endingSession)
        for start in client.pendingStarts {
            start.call.reply(.failed(reason))
            start.call.release()
        }
        client.pendingStarts = []
        guard client.active else { return }
        client.active = false
        emitClientChanged(client, ["Active"])
        updateInUse()
    }

    /// Stops the client's run, if it has one, and cuts it short should it not have finished ``ClientRun/endGrace``
    /// later.
    private func stopRun(of client: GeoClueClient, endingSession: Bool) {
        guard let run = client.run else { return }
        client.run = nil
        run.stop(endingSession: endingSession)
        if !run.isFinished { connection.after(ClientRun.endGrace) { run.cutShort() } }
    }

    /// Unexports a client and what it holds; `endingSession` ends its locd session, else it lingers.
    func remove(_ client: GeoClueClient, endingSession: Bool) {
        stopRun(of: client, endingSession: endingSession)
        for start in client.pendingStarts {
            start.call.reply(.failed("the client was deleted before locd decided"))
            start.call.release()
        }
        client.pendingStarts = []
        clients[client.path] = nil
        clientsByUID.uncount(counted(client.ownerUID))
        peers[client.owner]?.clients.removeAll { $0 == client.path }
        if let slot = client.slot { sd_bus_slot_unref(slot) }
        client.slot = nil
        if let location = client.location { retire(location.path, of: nil) }
        if client.active {
            client.active = false
            updateInUse()
        }
    }
}
