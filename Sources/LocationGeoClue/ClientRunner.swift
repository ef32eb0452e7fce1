import LocationClient

/// What `Start` sets going against locd: a `whenInUse` session, the wait for locd's decision, then a live-updates
/// stream whose fixes become Location objects.
struct ClientRunner: Sendable {
    /// What locd decided about a `Start`; after `authorized`, `refused` says the started client must stop (G16).
    enum Outcome: Sendable {
        case authorized
        case refused(String)
    }

    let app: LocdApp
    /// Runs on the bus thread; the runner waits for it, so that the `Start` is answered before the updates' work
    /// begins: on a busy machine, that work would delay the answer.
    let decided: @Sendable (Outcome) async -> Void
    /// Runs on the bus thread; the runner waits for it once a few are in flight (``ClientRun/fixesHandedOver``), so
    /// fixes queue at most in the stream's bounded buffer.
    let deliver: @Sendable (GeoClueFix) async -> Void

    func run(_ control: ClientRun) async {
        let client: LocationClient
        let session: ServiceSession
        do {
            client = try await app.connection()
            session = try await takeBackOrCreate(client)
        } catch {
            if !control.isStopped { await decided(.refused(StartRefusal.from(error, app: app.appID).message)) }
            return
        }
        control.sessionEnds { await session.end() }
        do {
            try await awaitDecision(session, client)
            await decided(.authorized)
            // The run's accuracy (ClientRun) may change while it runs (G12): the stream is then opened again.
            while try await control.streaming({ accuracy in try await updates(client, session, accuracy) }) {}
        } catch is CancellationError {
            // Stopped, deleted, or the peer left.
        } catch {
            if !control.isStopped { await decided(.refused(StartRefusal.from(error, app: app.appID).message)) }
        }
        if control.endsSession { await session.end() }
    }

    /// Delivers the fixes of a live-updates stream of `accuracy`, bound to `session` (U18); throws what to do when
    /// locd takes location away (G16) or ends the stream while the run goes on.
    private func updates(
        _ client: LocationClient,
        _ session: ServiceSession,
        _ accuracy: LocationUpdate.DesiredAccuracy?
    ) async throws {
        for try await update in client.liveUpdates(.default, accuracy: accuracy, session: session) {
            try stillAllowed(update)
            if let location = update.location { await deliver(GeoClueFix(location)) }
        }
        try Task.checkCancellation()
        throw StartRefusal.updatesEnded(app.appID)
    }

    /// A lingering `whenInUse` session the app left when an earlier peer of it left the bus (a relaunch inside locd's
    /// relaunch window, SEMANTICS L4): taken back with no new prompt. Else a new session.
    private func takeBackOrCreate(_ client: LocationClient) async throws -> ServiceSession {
        for lingering in await client.lingeringSessionsAtHello
        where lingering.kind == .explicit && lingering.authorization == .whenInUse
            && lingering.fullAccuracyPurposeKey == nil
        {
            guard await app.claim(lingering.id) else { continue }
            // Another process of the app may have taken it since that Hello: then try the next.
            if let session = try? await client.resumeSession(id: lingering.id) { return session }
        }
        return try await client.serviceSession(authorization: .whenInUse)
    }

    /// Returns once locd has decided for the app: authorized. Throws the ``StartRefusal`` that says what to do
    /// when it is denied, restricted, location services are off, or its prompt went unanswered (P8).
    ///
    /// A session locd reported `active` is authorized (SEMANTICS D12): nothing more to ask. Otherwise the diagnostic
    /// that came with the session decides when no prompt is pending; only a pending prompt needs the session's
    /// diagnostics stream (a connection of its own to locd), to wait for the answer.
    private func awaitDecision(_ session: ServiceSession, _ client: LocationClient) async throws {
        if session.activeAtStart { return }
        if let first = session.diagnosticAtStart, !first.authorizationRequestInProgress {
            return try await decide(first, client)
        }
        for try await diagnostic in session.diagnostics where !diagnostic.authorizationRequestInProgress {
            return try await decide(diagnostic, client)
        }
        try Task.checkCancellation()
        throw StartRefusal.ended(app.appID)
    }

    /// The decision a diagnostic with no prompt pending tells: returns when authorized, else throws what to do.
    private func decide(_ diagnostic: ServiceSession.Diagnostic, _ client: LocationClient) async throws {
        if let refusal = StartRefusal.of(diagnostic.flags, app: app.appID) { throw refusal }
        // No prompt pending: authorized, or the prompt was dismissed at its timeout (the record unchanged).
        if try await client.authorization.isAuthorized { return }
        throw StartRefusal.unanswered(app.appID)
    }

    /// Throws what to do when an update of a started client says locd took its location away: the app's grant
    /// revoked or restricted, or location services turned off (SEMANTICS G16).
    private func stillAllowed(_ update: LocationUpdate) throws {
        if let refusal = StartRefusal.of(update.flags, app: app.appID) { throw refusal }
    }
}
