import JSON
import LocationClient
import Varlink

/// One `Start` of a client against locd, on the bus thread: a `whenInUse` session (or a lingering one taken back),
/// the wait for locd's decision, then a live-updates stream bound to the session (U18) whose fixes become Location
/// objects; at the end, the session ended (`Stop`, `DeleteClient`, a refusal) or left to linger (the peer left the
/// bus, SEMANTICS L3).
///
/// Every step is a call on the app's connections (``LocdApp``), answered on the bus thread where the run goes on: no
/// task, no hand-over between threads. Runs of a client never overlap: one starts once the one before has finished.
final class ClientRun {
    /// What locd decided about a `Start`; after `authorized`, `refused` says the started client must stop (G16).
    enum Outcome {
        case authorized
        case refused(StartRefusal)
    }

    /// How long after a stop that ends the session the run may take to finish before ``cancel()`` cuts it: the bound
    /// stream's final reply comes on its own connection, just after locd's reply to the session's end.
    static let endGrace = 2.0

    private let app: LocdApp
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

    /// Finishes the run if it has not: its connections closed, what waits for it run.
    func cancel() {
        updates?.close()
        updates = nil
        finish()
    }

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
            return Self.callDecided(control, "io.locd.App.ResumeSession", ["id": .string(lingering.id)]) {
                [self] reply in
                if case .success(let reply) = reply, reply.error == nil {
                    sessionMade(reply.parameters, on: control)
                } else {
                    takeBackOrCreate(on: control, candidates: Array(rest))
                }
            }
        }
        Self.callDecided(control, "io.locd.App.CreateSession", ["authorization": .string("whenInUse")]) {
            [self] reply in
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
            return refuse(StartRefusal.updatesEnded(app.appID))
        }
        updates = link
        var parameters: JSONObject = ["configuration": .string("default"), "session": .string(session)]
        if let accuracy { parameters["accuracy"] = .string(accuracy.rawValue) }
        link.call("io.locd.App.LiveUpdates", parameters, more: true) { [self] reply in
            guard updates === link else { return }
            updateArrived(reply, on: link)
        }
    }

    /// One reply of the updates stream: a fix to deliver, locd taking location away (G16), or the stream's end.
    private func updateArrived(_ reply: Result<VarlinkReply, LocdLink.LinkFailure>, on link: LocdLink) {
        switch reply {
        case .success(let reply) where reply.error == nil && reply.continues:
            guard let update = try? LocationUpdate(wire: reply.parameters["update"]) else { return }
            if let refusal = StartRefusal.of(update.flags, app: app.appID) { return refuse(refusal) }
            if let location = update.location { deliver(self, GeoClueFix(location)) }
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
        case .failure:
            updates = nil
            if isStopped { return finish() }
            refuse(StartRefusal.updatesEnded(app.appID))
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

    /// Ends the session on the control connection, with no reply asked: the stream bound to it ends with its final
    /// reply (U18), and the run finishes then, or at once without a stream. A later call on the connection comes
    /// after it, and closing the connection after it still ends the session (locd reads what was sent first).
    private func endSession() {
        guard let session, !endingSession else {
            // Ending already (or nothing to end): done once no stream is left to end with it.
            if updates == nil { finish() }
            return
        }
        endingSession = true
        app.control { [self] result in
            guard case .success(let control) = result else { return cancel() }
            control.send("io.locd.App.InvalidateSession", ["id": .string(session)])
            if updates == nil { finish() }
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
