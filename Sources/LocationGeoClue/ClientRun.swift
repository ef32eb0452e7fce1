import JSON
import LocationClient
import LocationProtocol
import Varlink

/// One `Start` of a client against locd, on the bus thread: the shell of ``ClientRunCore``, which decides every step.
/// It carries out the core's actions on the app's connections (``LocdApp``) and hands back what they answer, each
/// answer on the bus thread where the run goes on: no task, no hand-over between threads. Runs of a client never
/// overlap: one begins once the one before has finished.
///
/// Once started, the run outlasts what locd takes away for a while (G16): updates that carry a denial deliver
/// nothing until they carry a location again, and a connection locd closes (it stopped or restarted) is made again
/// with backoff, the session taken back with `ResumeSession` (or created again when locd no longer has it) and its
/// stream opened again, with no `Start`.
final class ClientRun {
    typealias Outcome = ClientRunCore.Outcome

    static let reconnectSeconds = ClientRunCore.reconnectSeconds

    /// How long after a stop that ends the session the run may take to finish before ``cutShort()`` cuts it: the
    /// bound stream's final reply comes on its own connection, just after locd's reply to the session's end.
    static let endGrace = 2.0

    private let app: LocdApp
    private var core: ClientRunCore
    private let decided: (ClientRun, Outcome) -> Void
    private let deliver: (ClientRun, GeoClueFix) -> Void
    /// The connection of the session's stream in force.
    private var updates: LocdLink?
    private var whenFinished: [() -> Void] = []
    /// Events that came while another was handled (an answer given at once, a callback that stops the run):
    /// handled in order after it, so that the core's actions are carried out in the order it returned them.
    private var events: [ClientRunCore.Event] = []
    private var isHandling = false

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
        core = ClientRunCore(appID: app.appID, accuracy: accuracy)
        self.decided = decided
        self.deliver = deliver
    }

    var isFinished: Bool { core.isFinished }

    /// Whether the run waits for an answer to its app's prompt (G17 tells the client so).
    var isAwaitingPrompt: Bool { core.isAwaitingPrompt }

    /// Begins once `previous` (the run of the client's earlier `Start`) has finished.
    func start(after previous: ClientRun?) {
        guard let previous, !previous.isFinished else { return send(.begin) }
        previous.whenFinished.append { [self] in send(.begin) }
    }

    /// Runs `body` once the run has finished (at once if it has).
    func afterFinishing(_ body: @escaping () -> Void) {
        if isFinished { body() } else { whenFinished.append(body) }
    }

    /// Stops the run; `endingSession` says whether the locd session is to end or linger.
    func stop(endingSession: Bool) { send(.stop(endingSession: endingSession)) }

    /// ``endGrace`` after a stop that ends the session: the run is cut short, unless locd still owes it the session
    /// or the answer to its end (``ClientRunCore/cutShort()``).
    func cutShort() { send(.cutShort) }

    /// Asks the updates with `accuracy` from now on.
    func changeAccuracy(to accuracy: LocationUpdate.DesiredAccuracy?) { send(.changeAccuracy(accuracy)) }

    private func send(_ event: ClientRunCore.Event) {
        events.append(event)
        guard !isHandling else { return }
        isHandling = true
        defer { isHandling = false }
        while !events.isEmpty {
            let event = events.removeFirst()
            for action in core.handle(event) { carryOut(action) }
        }
    }

    private func carryOut(_ action: ClientRunCore.Action) {
        switch action {
        case .connect:
            app.control { [self] result in
                switch result {
                case .success: send(.connected(resumable: ClientRunCore.resumable(app.lingeringAtHello)))
                case .failure(let error): send(.connectFailed(trouble(error)))
                }
            }
        case .takeBack(let id):
            guard app.claim(id) else {
                return send(.sessionFailed(.refused(StartRefusal(message: "another client took session \(id)"))))
            }
            resumeSession(id)
        case .create: callSession(AppMethod.createSession.name, ["authorization": .string("whenInUse")])
        case .resume(let id): resumeSession(id)
        case .readAuthorization: readAuthorization()
        case .openUpdates(let session, let accuracy): openUpdates(session, accuracy)
        case .closeUpdates:
            updates?.close()
            updates = nil
        case .invalidate(let id): invalidate(id)
        case .scheduleReconnect(let seconds): app.after(seconds) { [self] in send(.reconnectDue) }
        case .claim(let id): _ = app.claim(id)
        case .release(let id): app.release(id)
        case .tell(let outcome): decided(self, outcome)
        case .deliver(let fix): deliver(self, fix)
        case .finished:
            let waiting = whenFinished
            whenFinished = []
            for body in waiting { body() }
        }
    }

    // MARK: Calls on the control connection

    /// Calls `method` with `more` on the app's control connection, so that locd answers with the session as soon as
    /// it has decided, and again once the session is stored (SEMANTICS R11); the run hears the first reply only. A
    /// GeoClue client cannot tell a stored session from one that is not: should locd stop before storing it, the
    /// client stops all the same (G16), and a `Start` need not wait for locd's disk.
    private func callSession(_ method: String, _ parameters: JSONObject) {
        app.control { [self] result in
            guard case .success(let control) = result else {
                if case .failure(let error) = result { send(.sessionFailed(trouble(error))) }
                return
            }
            var heard = false
            control.call(method, parameters, more: true) { [self] reply in
                guard !heard else { return }
                heard = true
                send(Self.session(of: reply, app: app.appID))
            }
        }
    }

    private func resumeSession(_ id: String) {
        callSession(AppMethod.resumeSession.name, ["id": .string(id)])
    }

    /// What a session call's first reply tells the core.
    private static func session(
        of reply: Result<VarlinkReply, LocdLink.LinkFailure>,
        app: String
    ) -> ClientRunCore.Event {
        switch parameters(of: reply) {
        case .success(let parameters):
            guard let session = parameters["session"], let id = session["id"]?.stringValue else {
                return .sessionFailed(.refused(.unexpectedReply("a session reply without a session id", app: app)))
            }
            let diagnostic = try? ServiceSession.Diagnostic(wire: session["diagnostic"])
            return .sessionMade(
                ClientRunCore.Session(
                    id: id,
                    active: session["state"]?.stringValue == "active",
                    flags: diagnostic?.flags
                )
            )
        case .failure(let error):
            return .sessionFailed(trouble(error, app: app))
        }
    }

    private func readAuthorization() {
        app.control { [self] result in
            switch result {
            case .success(let control):
                control.call(AppMethod.getAuthorization.name) { [self] reply in
                    switch Self.parameters(of: reply) {
                    case .success(let parameters):
                        let authorization = try? Authorization(wire: parameters["authorization"])
                        send(.authorizationRead(authorized: authorization?.isAuthorized == true))
                    case .failure(let error): send(.authorizationFailed(trouble(error)))
                    }
                }
            case .failure(let error): send(.authorizationFailed(trouble(error)))
            }
        }
    }

    /// Calls `InvalidateSession` for `id`; the core hears once locd has answered, or the connection has failed.
    private func invalidate(_ id: String) {
        app.control { [self] result in
            guard case .success(let control) = result else { return send(.endAnswered(reached: false)) }
            control.call(AppMethod.invalidateSession.name, ["id": .string(id)]) { [self] _ in
                send(.endAnswered(reached: true))
            }
        }
    }

    // MARK: The session's stream

    /// Opens the live-updates stream of `accuracy`, bound to `session` (U18), on a stream connection.
    private func openUpdates(_ session: String, _ accuracy: LocationUpdate.DesiredAccuracy?) {
        let link: LocdLink
        do {
            link = try app.streamLink()
        } catch {
            // locd is not there to connect to (it stopped just now).
            return send(.updatesFailed(trouble(error)))
        }
        updates = link
        var parameters: JSONObject = ["configuration": .string("default"), "session": .string(session)]
        if let accuracy { parameters["accuracy"] = .string(accuracy.rawValue) }
        link.call(AppMethod.liveUpdates.name, parameters, more: true) { [self] reply in
            guard updates === link else { return }
            guard let event = updateArrived(reply, on: link) else { return }
            send(event)
        }
    }

    /// One reply of the updates stream as the core hears it: an update, or the stream's end, whose connection is
    /// kept for the next stream when locd ended it cleanly (U18).
    private func updateArrived(
        _ reply: Result<VarlinkReply, LocdLink.LinkFailure>,
        on link: LocdLink
    ) -> ClientRunCore.Event? {
        switch reply {
        case .success(let reply) where reply.error == nil && reply.continues:
            guard let update = try? LocationUpdate(wire: reply.parameters["update"]) else { return nil }
            return .update(update.flags, update.location.map(GeoClueFix.init))
        case .success(let reply) where reply.error == nil:
            updates = nil
            app.park(link)
            return .updatesEnded
        case .success(let reply):
            // An error ends the call, not the connection: a stream opened just after its session ended (a `Stop`
            // that came first) is answered `SessionInvalidated`, and the connection serves the next stream.
            updates = nil
            app.park(link)
            return .updatesFailed(trouble(VarlinkError(name: reply.error ?? "", parameters: reply.parameters)))
        case .failure(let failure):
            updates = nil
            // locd refused the stream connection's Hello (a bound, F11): a decision, which G16 keeps as a real stop.
            if let refused = failure.refusal { return .updatesFailed(.refused(refusal(refused))) }
            return .updatesFailed(trouble(failure))
        }
    }

    // MARK: Failures

    private func trouble(_ error: any Error) -> ClientRunCore.Trouble {
        Self.trouble(error, app: app.appID)
    }

    private func refusal(_ error: any Error) -> StartRefusal {
        StartRefusal.from(Self.clientError(error), app: app.appID)
    }

    /// What a failed call tells the core: locd away, locd no longer having the session, or locd's refusal.
    private static func trouble(_ error: any Error, app: String) -> ClientRunCore.Trouble {
        let refusal = StartRefusal.from(clientError(error), app: app)
        switch error {
        case is LocdLink.LinkFailure: return .unreachable(refusal)
        case let error as VarlinkError
        where error.name == WireErrorName.noSuchSession.name || error.name == WireErrorName.sessionInvalidated.name:
            return .sessionGone(refusal)
        default:
            if case .daemonUnavailable = error as? LocationClientError { return .unreachable(refusal) }
            return .refused(refusal)
        }
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
