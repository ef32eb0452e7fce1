import JSON
import LocationClient
import Varlink

/// One `Start` of a client against locd, on the bus thread: a `whenInUse` session (or a lingering one taken back),
/// the wait for locd's decision, then a live-updates stream bound to the session (U18) whose fixes become Location
/// objects; at the end, the session ended (`Stop`, `DeleteClient`, a refusal) or left to linger (the peer left the
/// bus, SEMANTICS L3).
///
/// Once started, the run outlasts what locd takes away for a while (G16): updates that carry a denial deliver
/// nothing until they carry a location again, and a connection locd closes (it stopped or restarted) is made again
/// with backoff, the session taken back with `ResumeSession` (or created again when locd no longer has it) and its
/// stream opened again, with no `Start`.
///
/// Every step is a call on the app's connections (``LocdApp``), answered on the bus thread where the run goes on: no
/// task, no hand-over between threads. Runs of a client never overlap: one starts once the one before has finished.
final class ClientRun {
    /// What locd decided about a `Start`; after `authorized`, `refused` says the started client must stop (G16).
    enum Outcome {
        case authorized
        case refused(StartRefusal)
        /// locd takes the started client's location away for now, or is away itself: nothing is delivered until it
        /// comes back, and the run goes on (G16). Told once for each reason in a row.
        case withheld(StartRefusal)
        /// The started client's location came back after `withheld`: its next fix is being delivered.
        case resumed
    }

    /// The delays between attempts to reach locd again after it closed a started run's connection: doubled after
    /// each failure, up to the second, which is below locd's default `relaunch-window` (10 s), so the restored
    /// session is taken back while it lingers (SEMANTICS R3, G16).
    static let reconnectSeconds = (first: 1.0, most: 8.0)

    /// How long after a stop that ends the session the run may take to finish before ``cancel()`` cuts it: the bound
    /// stream's final reply comes on its own connection, just after locd's reply to the session's end.
    static let endGrace = 2.0

    private let app: LocdApp
    /// A `CreateSession` or `ResumeSession` of the run waits for locd's reply.
    private var sessionOnItsWay = false
    /// The run's `InvalidateSession` waits for locd's reply.
    private var endOnItsWay = false
    /// `nil` for what the grant allows, `.reduced` for the grid cell; may change while the run goes on (G12).
    private var accuracy: LocationUpdate.DesiredAccuracy?
    private let decided: (ClientRun, Outcome) -> Void
    private let deliver: (ClientRun, GeoClueFix) -> Void
    private var session: String?
    /// The connection of the updates stream in force, and of the diagnostics stream while a prompt is pending.
    private var updates: LocdLink?
    private var diagnostics: LocdLink?
    private var isStopped = false
    private var endsSession = true
    private var endingSession = false
    /// Why the started client's location is taken away now, as last told; `nil` while it is delivered.
    private var withheldBecause: String?
    private var reconnectDelay = ClientRun.reconnectSeconds.first
    private var isReconnectSet = false
    private(set) var isFinished = false
    private var whenFinished: [() -> Void] = []

    /// - Parameters:
    ///   - decided: called once locd decided the `Start`, and again (`refused`) if locd takes location away after.
    ///   - deliver: called with each fix of the updates stream.
    init(
        app: LocdApp,
        accuracy: LocationUpdate.DesiredAccuracy?,
        decided: @escaping (ClientRun, Outcome) -> Void,
        deliver: @escaping (ClientRun, GeoClueFix) -> Void
    ) {
        self.app = app
        self.accuracy = accuracy
        self.decided = decided
        self.deliver = deliver
    }

    /// Starts once `previous` (the run of the client's earlier `Start`) has finished.
    func start(after previous: ClientRun?) {
        guard let previous, !previous.isFinished else { return begin() }
        previous.whenFinished.append { [self] in begin() }
    }

    /// Runs `body` once the run has finished (at once if it has).
    func afterFinishing(_ body: @escaping () -> Void) {
        if isFinished { body() } else { whenFinished.append(body) }
    }

    /// Stops the run; `endingSession` says whether the locd session is to end or linger. A run whose session is to
    /// end ends it, and finishes when its stream has ended; any other finishes at once.
    func stop(endingSession: Bool) {
        guard !isStopped else { return }
        isStopped = true
        endsSession = endingSession
        closeDiagnostics()
        guard endingSession else { return cancel() }
        // Without a session yet, the run ends the one on its way when it comes (sessionMade), or has finished.
        if session != nil { endSession() }
    }

    /// ``endGrace`` after a stop that ends the session: the run is cut short, unless the session or its end is still
    /// on its way from locd. A session on its way must be ended when it comes (``sessionMade(_:on:)``), and an end
    /// must be answered: cut short, the run would let its connection close first, and the session would linger for
    /// locd's relaunch window though the client's `Stop` was answered (a loaded locd answers after the grace). A
    /// connection that fails answers both.
    func cutShort() {
        if isStopped && endsSession && (sessionOnItsWay || endOnItsWay) { return }
        cancel()
    }

    /// Finishes the run if it has not: its connections closed, what waits for it run.
    func cancel() {
        updates?.close()
        updates = nil
        finish()
    }

    /// Whether the run waits for an answer to its app's prompt (G17 tells the client so).
    var isAwaitingPrompt: Bool { diagnostics != nil }

    /// Asks the updates with `accuracy` from now on: a stream of another accuracy is ended and opened again.
    func changeAccuracy(to accuracy: LocationUpdate.DesiredAccuracy?) {
        guard accuracy != self.accuracy else { return }
        self.accuracy = accuracy
        guard let stream = updates, !isStopped else { return }
        // Only closing its connection ends a stream: the new one goes on another.
        updates = nil
        stream.close()
        openUpdates()
    }

    // MARK: The session

    private func begin() {
        guard !isStopped else { return finish() }
        app.control { [self] result in
            guard !isStopped else { return finish() }
            switch result {
            case .success(let control): takeBackOrCreate(on: control, candidates: app.lingeringAtHello)
            case .failure(let error): refuse(error)
            }
        }
    }

    /// A lingering `whenInUse` session the app left when an earlier peer of it left the bus (a relaunch inside
    /// locd's relaunch window, SEMANTICS L4): taken back with no new prompt. Else a new session.
    private func takeBackOrCreate(on control: LocdLink, candidates: [LingeringSession]) {
        guard !isStopped else { return finish() }
        var rest = candidates[...]
        while let lingering = rest.popFirst() {
            guard
                lingering.kind == .explicit && lingering.authorization == .whenInUse
                    && lingering.fullAccuracyPurposeKey == nil && app.claim(lingering.id)
            else { continue }
            // Another process of the app may have taken it since that Hello: then try the next.
            sessionOnItsWay = true
            return Self.callDecided(control, "io.locd.App.ResumeSession", ["id": .string(lingering.id)]) {
                [self] reply in
                sessionOnItsWay = false
                if case .success(let reply) = reply, reply.error == nil {
                    sessionMade(reply.parameters, on: control)
                } else {
                    takeBackOrCreate(on: control, candidates: Array(rest))
                }
            }
        }
        sessionOnItsWay = true
        Self.callDecided(control, "io.locd.App.CreateSession", ["authorization": .string("whenInUse")]) {
            [self] reply in
            sessionOnItsWay = false
            switch Self.parameters(of: reply) {
            case .success(let parameters): sessionMade(parameters, on: control)
            case .failure(let error): refuse(error)
            }
        }
    }

    /// Calls `method` with `more`, so that locd answers with the session as soon as it has decided, and again once
    /// the session is stored (SEMANTICS R11); `body` hears the first reply only. A GeoClue client cannot tell a
    /// stored session from one that is not: should locd stop before storing it, the client stops all the same
    /// (G16), and a `Start` need not wait for locd's disk.
    private static func callDecided(
        _ control: LocdLink,
        _ method: String,
        _ parameters: JSONObject,
        _ body: @escaping (Result<VarlinkReply, LocdLink.LinkFailure>) -> Void
    ) {
        var heard = false
        control.call(method, parameters, more: true) { reply in
            guard !heard else { return }
            heard = true
            body(reply)
        }
    }

    /// The session locd created or gave back: a stop that came meanwhile ends it; else locd's decision is read.
    ///
    /// A session locd reports `active` is authorized (SEMANTICS D12): nothing more to ask. Otherwise the diagnostic
    /// that came with it decides when no prompt is pending; only a pending prompt needs the session's diagnostics
    /// stream, to wait for the answer.
    private func sessionMade(_ parameters: JSONObject, on control: LocdLink) {
        guard let session = parameters["session"], let id = session["id"]?.stringValue else {
            return refuse(LocationClientError.unexpectedReply("a session reply without a session id"))
        }
        self.session = id
        _ = app.claim(id)
        if isStopped { return endsSession ? endSession() : finish() }
        if session["state"]?.stringValue == "active" { return authorized() }
        guard let diagnostic = try? ServiceSession.Diagnostic(wire: session["diagnostic"]) else {
            return refuse(LocationClientError.unexpectedReply("a session without a diagnostic"))
        }
        if diagnostic.authorizationRequestInProgress { return awaitPrompt(of: id) }
        decide(diagnostic, on: control)
    }

    /// Follows the session's diagnostics until no prompt is pending, then decides.
    private func awaitPrompt(of id: String) {
        let link: LocdLink
        do {
            link = try app.streamLink()
        } catch {
            return refuse(error)
        }
        diagnostics = link
        link.call("io.locd.App.SessionDiagnostics", ["id": .string(id)], more: true) { [self] reply in
            guard diagnostics === link else { return }
            switch Self.parameters(of: reply) {
            case .success(let parameters):
                if parameters["ended"]?.boolValue == true {
                    closeDiagnostics()
                    return refuse(StartRefusal.ended(app.appID))
                }
                guard let diagnostic = try? ServiceSession.Diagnostic(wire: parameters["diagnostic"]),
                    !diagnostic.authorizationRequestInProgress
                else { return }
                closeDiagnostics()
                app.control { [self] result in
                    switch result {
                    case .success(let control): decide(diagnostic, on: control)
                    case .failure(let error): refuse(error)
                    }
                }
            case .failure(let error):
                closeDiagnostics()
                refuse(error)
            }
        }
    }

    /// The decision a diagnostic with no prompt pending tells: authorized, or a refusal that says what to do.
    private func decide(_ diagnostic: ServiceSession.Diagnostic, on control: LocdLink) {
        if let refusal = StartRefusal.of(diagnostic.flags, app: app.appID) { return refuse(refusal) }
        // No prompt pending: authorized, or the prompt was dismissed at its timeout (the record unchanged).
        control.call("io.locd.App.GetAuthorization") { [self] reply in
            switch Self.parameters(of: reply) {
            case .success(let parameters):
                let authorization = try? Authorization(wire: parameters["authorization"])
                if authorization?.isAuthorized == true {
                    authorized()
                } else {
                    refuse(StartRefusal.unanswered(app.appID))
                }
            case .failure(let error): refuse(error)
            }
        }
    }

    private func authorized() {
        guard !isStopped else { return }
        decided(self, .authorized)
        openUpdates()
    }

    // MARK: The updates

    /// Opens the live-updates stream of the run's accuracy, bound to its session (U18).
    private func openUpdates() {
        guard let session, !isStopped else { return }
        let link: LocdLink
        do {
            link = try app.streamLink()
        } catch {
            // locd is not there to connect to (it stopped just now): try again later.
            return connectionLost()
        }
        updates = link
        var parameters: JSONObject = ["configuration": .string("default"), "session": .string(session)]
        if let accuracy { parameters["accuracy"] = .string(accuracy.rawValue) }
        link.call("io.locd.App.LiveUpdates", parameters, more: true) { [self] reply in
            guard updates === link else { return }
            updateArrived(reply, on: link)
        }
    }

    /// One reply of the updates stream: a fix to deliver, locd taking location away for now (G16), or the stream's
    /// end: the session's (a real stop) or the connection's (locd went away: connect again).
    private func updateArrived(_ reply: Result<VarlinkReply, LocdLink.LinkFailure>, on link: LocdLink) {
        switch reply {
        case .success(let reply) where reply.error == nil && reply.continues:
            guard let update = try? LocationUpdate(wire: reply.parameters["update"]) else { return }
            reconnectDelay = Self.reconnectSeconds.first
            if let refusal = StartRefusal.of(update.flags, app: app.appID) { return withhold(refusal) }
            guard let location = update.location else { return }
            if withheldBecause != nil {
                withheldBecause = nil
                decided(self, .resumed)
            }
            deliver(self, GeoClueFix(location))
        case .success(let reply) where reply.error == nil:
            // The session ended, and the stream with it: the connection is free for the next stream.
            updates = nil
            app.park(link)
            if isStopped { return finish() }
            refuse(StartRefusal.updatesEnded(app.appID))
        case .success(let reply):
            updates = nil
            link.close()
            refuse(VarlinkError(name: reply.error ?? "", parameters: reply.parameters))
        case .failure(let failure):
            updates = nil
            if isStopped { return finish() }
            // locd refused the stream connection's Hello (a bound, F11): a decision, which G16 keeps as a real stop.
            if let refusal = failure.refusal { return refuse(refusal) }
            connectionLost()
        }
    }

    // MARK: Taking location back (G16)

    /// Tells, once for each reason in a row, that the started client's location is taken away for now.
    private func withhold(_ refusal: StartRefusal) {
        guard withheldBecause != refusal.message else { return }
        withheldBecause = refusal.message
        decided(self, .withheld(refusal))
    }

    /// The connection of the updates stream ended without the session's end: locd went away (or closed it). The
    /// client keeps its session and waits for locd to come back.
    private func connectionLost() {
        withhold(StartRefusal.locdAway(app.appID))
        scheduleReconnect()
    }

    /// Tries to reach locd again after the current delay, one attempt waiting at a time.
    private func scheduleReconnect() {
        guard !isStopped, !isReconnectSet else { return }
        isReconnectSet = true
        let delay = reconnectDelay
        reconnectDelay = min(delay * 2, Self.reconnectSeconds.most)
        app.after(delay) { [self] in
            isReconnectSet = false
            reattach()
        }
    }

    /// Takes the session back on the app's control connection (made again, with the same `Hello`, if locd closed
    /// it) and opens its updates again; a session locd no longer has is created again.
    private func reattach() {
        guard !isStopped, updates == nil, let session else { return }
        app.control { [self] result in
            guard !isStopped else { return }
            switch result {
            case .success(let control):
                Self.callDecided(control, "io.locd.App.ResumeSession", ["id": .string(session)]) { [self] reply in
                    guard !isStopped else { return }
                    switch Self.parameters(of: reply) {
                    case .success: openUpdates()
                    case .failure(let error as VarlinkError)
                    where error.name == "io.locd.App.NoSuchSession" || error.name == "io.locd.App.SessionInvalidated":
                        recreate(on: control)
                    case .failure(let error as VarlinkError): refuse(error)
                    case .failure: scheduleReconnect()
                    }
                }
            case .failure(let error):
                // Not there yet: try again. Any other failure is locd refusing the app's Hello: a real stop.
                if case .daemonUnavailable = error as? LocationClientError { return scheduleReconnect() }
                refuse(error)
            }
        }
    }

    /// A new `whenInUse` session in place of one locd no longer has (its relaunch window closed while locd was
    /// away, or it was never stored): the started client goes on with it.
    private func recreate(on control: LocdLink) {
        sessionOnItsWay = true
        Self.callDecided(control, "io.locd.App.CreateSession", ["authorization": .string("whenInUse")]) {
            [self] reply in
            sessionOnItsWay = false
            switch Self.parameters(of: reply) {
            case .success(let parameters):
                guard let id = parameters["session"]?["id"]?.stringValue else {
                    return refuse(LocationClientError.unexpectedReply("a session reply without a session id"))
                }
                if let old = session { app.release(old) }
                _ = app.claim(id)
                guard !isStopped else {
                    // A stop came meanwhile and ended the old id: this one ends too.
                    app.release(id)
                    invalidate(id, on: control) { [self] in
                        if updates == nil { finish() }
                    }
                    return
                }
                session = id
                openUpdates()
            case .failure(let error): refuse(error)
            }
        }
    }

    // MARK: The end

    /// locd refused the `Start`, or took location away from the started client: it hears why, and the session (if
    /// any) ends.
    private func refuse(_ error: any Error) {
        closeDiagnostics()
        if !isStopped {
            isStopped = true
            decided(self, .refused(StartRefusal.from(Self.clientError(error), app: app.appID)))
        }
        if endsSession && session != nil { return endSession() }
        cancel()
    }

    /// Ends the session on the control connection: the stream bound to it ends with its final reply (U18), and the
    /// run finishes then, or without a stream once locd has answered the end. The answer is waited for because a
    /// call sent behind one locd is still carrying out (the `CreateSession` whose stored reply has not come) waits
    /// its turn, and a connection closed meanwhile takes it away unheard: the session would linger (G6).
    private func endSession() {
        guard let session, !endingSession else {
            // Ending already (or nothing to end): done once no stream is left to end with it.
            if updates == nil { finish() }
            return
        }
        endingSession = true
        app.control { [self] result in
            guard case .success(let control) = result else { return cancel() }
            invalidate(session, on: control) { [self] in
                if updates == nil { finish() }
            }
        }
    }

    /// Calls `InvalidateSession` for `id`; `then` runs once locd has answered, or the connection has failed.
    private func invalidate(_ id: String, on control: LocdLink, then: @escaping () -> Void) {
        endOnItsWay = true
        control.call("io.locd.App.InvalidateSession", ["id": .string(id)]) { [self] _ in
            endOnItsWay = false
            then()
        }
    }

    private func closeDiagnostics() {
        diagnostics?.close()
        diagnostics = nil
    }

    private func finish() {
        guard !isFinished else { return }
        isFinished = true
        closeDiagnostics()
        if let session { app.release(session) }
        let waiting = whenFinished
        whenFinished = []
        for body in waiting { body() }
    }

    /// A reply's parameters, or the error it carries.
    private static func parameters(
        of reply: Result<VarlinkReply, LocdLink.LinkFailure>
    ) -> Result<JSONObject, any Error> {
        switch reply {
        case .success(let reply) where reply.error != nil:
            .failure(VarlinkError(name: reply.error ?? "", parameters: reply.parameters))
        case .success(let reply): .success(reply.parameters)
        case .failure(let failure): .failure(failure)
        }
    }

    /// What a failed call tells, as the client library names it.
    private static func clientError(_ error: any Error) -> any Error {
        switch error {
        case let error as VarlinkError: LocationClientError(error)
        case let failure as LocdLink.LinkFailure:
            LocationClientError.daemonUnavailable(socketPath: "locd's socket", reason: failure.description)
        default: error
        }
    }
}
