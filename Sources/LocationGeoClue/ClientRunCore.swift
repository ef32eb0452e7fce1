import LocationClient

/// What one `Start` of a GeoClue client does with locd, decided from what happens (SEMANTICS G1, G3, G6, G16–G18):
/// a `whenInUse` session (or a lingering one taken back), locd's decision, then the session's updates stream whose
/// fixes the client is given; at the end, the session ended or left to linger.
///
/// Deterministic: it never touches the bus, a socket or a clock. Each ``Event`` returns the ``Action``s for the shell
/// (``ClientRun``) to carry out, and what the shell learns doing them comes back as events. Where the run stands is
/// one ``Phase``; the session it holds, whether its stream is open and whether a stop waits on locd are parts of it.
struct ClientRunCore {
    /// What locd decided about a `Start`; after `authorized`, `refused` says the started client must stop (G16).
    enum Outcome: Equatable, Sendable {
        case authorized
        case refused(StartRefusal)
        /// locd takes the started client's location away for now, or is away itself: nothing is delivered until it
        /// comes back, and the run goes on (G16). Told once for each reason in a row.
        case withheld(StartRefusal)
        /// The started client's location came back after `withheld`: its next fix is being delivered.
        case resumed
    }

    /// Why a call to locd failed, as the run tells the cases apart; each carries the refusal the client would hear.
    enum Trouble: Equatable, Sendable {
        /// The connection failed, or could not be made: locd is away (stopped, restarting).
        case unreachable(StartRefusal)
        /// locd answered with an error, or refused the connection's `Hello`: a decision.
        case refused(StartRefusal)
        /// locd no longer has the session (`NoSuchSession`, `SessionInvalidated`).
        case sessionGone(StartRefusal)

        var refusal: StartRefusal {
            switch self {
            case .unreachable(let refusal), .refused(let refusal), .sessionGone(let refusal): refusal
            }
        }
    }

    /// A session locd created or gave back, as its first reply tells it.
    struct Session: Equatable, Sendable {
        var id: String
        /// Whether locd reports it `active`: authorized, nothing more to ask (SEMANTICS D12).
        var active: Bool
        /// Its diagnostic's flags; `nil` when the reply carried no diagnostic.
        var flags: DiagnosticFlags?
    }

    enum Event: Equatable, Sendable {
        /// The client's run before this one has finished: this one may begin.
        case begin
        /// The app's control connection is open; `resumable` are the lingering sessions its `Hello` listed that a
        /// `Start` may take back (``resumable(_:)``).
        case connected(resumable: [String])
        case connectFailed(Trouble)
        /// The first reply of a `CreateSession` or `ResumeSession`.
        case sessionMade(Session)
        case sessionFailed(Trouble)
        /// `GetAuthorization` answered: whether the app is authorized.
        case authorizationRead(authorized: Bool)
        case authorizationFailed(Trouble)
        /// An update of the session's stream: its flags, and its location as the client's fix.
        case update(DiagnosticFlags, GeoClueFix?)
        /// The stream's final reply: the session ended (U18).
        case updatesEnded
        /// The stream failed, or could not be opened.
        case updatesFailed(Trouble)
        /// `InvalidateSession` answered (or its connection failed after it was sent); `reached` is false when no
        /// connection to locd could be had to send it.
        case endAnswered(reached: Bool)
        /// The wait before reaching locd again is over.
        case reconnectDue
        /// `Stop`, `DeleteClient` (`endingSession`), or the peer leaving the bus (the session lingers, G6).
        case stop(endingSession: Bool)
        /// ``ClientRun/endGrace`` after a stop: finish unless locd still owes the session or its end (G6).
        case cutShort
        /// The client's accuracy changed (G2, G12): `nil` for what the grant allows, `.reduced` for the grid cell.
        case changeAccuracy(LocationUpdate.DesiredAccuracy?)
    }

    enum Action: Equatable, Sendable {
        /// Open the app's control connection (its `Hello`); the answer is ``Event/connected(resumable:)`` or
        /// ``Event/connectFailed(_:)``.
        case connect
        /// Claim the lingering session `id` among the app's clients and call `ResumeSession(id)` with `more`; a
        /// session another client claimed fails at once. The answer is ``Event/sessionMade(_:)`` or
        /// ``Event/sessionFailed(_:)``, as for the three below.
        case takeBack(String)
        /// `CreateSession(whenInUse)` with `more` (R11: its first reply is the decision).
        case create
        /// `ResumeSession(id)` with `more` of the run's own session, locd having come back (G16).
        case resume(String)
        /// `GetAuthorization`; the answer is ``Event/authorizationRead(authorized:)`` or
        /// ``Event/authorizationFailed(_:)``.
        case readAuthorization
        /// Open `LiveUpdates` bound to `session` (U18) at `accuracy` on a stream connection; replaces none (a stream
        /// open is closed first by ``closeUpdates``).
        case openUpdates(session: String, accuracy: LocationUpdate.DesiredAccuracy?)
        case closeUpdates
        /// `InvalidateSession(id)`; the answer is ``Event/endAnswered(reached:)``.
        case invalidate(String)
        /// Send ``Event/reconnectDue`` once `seconds` have passed.
        case scheduleReconnect(seconds: Double)
        /// The run holds session `id` / no longer does: no other client of the app's connection takes it back (G6).
        case claim(String)
        case release(String)
        /// Tell the client's service what locd decided.
        case tell(Outcome)
        /// Give the client this fix.
        case deliver(GeoClueFix)
        /// The run has finished: what waits for it may go on.
        case finished
    }

    /// A session call on its way.
    enum SessionCall: Equatable, Sendable {
        /// `ResumeSession` of a lingering session of the app; `rest` are the ones to try after it.
        case takingBack(rest: [String])
        case creating
        /// `CreateSession` in place of `old`, which locd no longer has (G16).
        case recreating(old: String)
    }

    /// Where the run stands.
    enum Phase: Equatable, Sendable {
        /// The client's run before this one has not finished; `endWhenBegun` when a stop that ends the session came.
        case waiting(endWhenBegun: Bool)
        /// The app's control connection is on its way.
        case connecting
        /// A session call is on its way; `endWhenMade` when a stop that ends the session came meanwhile: the
        /// session locd makes is ended, however late (G6).
        case opening(SessionCall, endWhenMade: Bool)
        /// `GetAuthorization` decides; `streamOpen` when the session's stream is already open (G18).
        case deciding(session: String, streamOpen: Bool)
        /// The session's stream is open and the app's prompt pending: its updates decide (G18).
        case awaitingPrompt(session: String)
        /// Authorized: the session's stream is open, or being opened.
        case started(session: String)
        /// locd went away (G16): waiting to try again, or its `ResumeSession` on its way (`resuming`).
        case away(session: String, resuming: Bool)
        /// `InvalidateSession` sent; done once it is answered and the stream, if open, has ended.
        case ending(session: String, streamOpen: Bool, endAnswered: Bool)
        case finished
    }

    /// The delays between attempts to reach locd again after it closed a started run's connection: doubled after
    /// each failure, up to the second, which is below locd's default `relaunch-window` (10 s), so the restored
    /// session is taken back while it lingers (SEMANTICS R3, G16).
    static let reconnectSeconds = (first: 1.0, most: 8.0)

    let appID: String
    var phase = Phase.waiting(endWhenBegun: false)
    /// `nil` for what the grant allows, `.reduced` for the grid cell; may change while the run goes on (G12).
    var accuracy: LocationUpdate.DesiredAccuracy?
    /// Why the started client's location is taken away now, as last told; `nil` while it is delivered.
    var withheldBecause: String?
    var reconnectDelay = ClientRunCore.reconnectSeconds.first

    init(appID: String, accuracy: LocationUpdate.DesiredAccuracy?) {
        self.appID = appID
        self.accuracy = accuracy
    }

    var isFinished: Bool { phase == .finished }

    /// Whether the run waits for an answer to its app's prompt (G17 tells the client so).
    var isAwaitingPrompt: Bool {
        if case .awaitingPrompt = phase { return true }
        return false
    }

    /// The lingering sessions a `Start` may take back (SEMANTICS L4, G6): explicit `whenInUse` ones without a
    /// purpose key, as a GeoClue client's are.
    static func resumable(_ sessions: [LingeringSession]) -> [String] {
        sessions.filter {
            $0.kind == .explicit && $0.authorization == .whenInUse && $0.fullAccuracyPurposeKey == nil
        }.map(\.id)
    }

    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .begin: begin()
        case .connected(let resumable): connected(resumable)
        case .connectFailed(let trouble): phase == .connecting ? refuse(trouble.refusal) : []
        case .sessionMade(let session): sessionMade(session)
        case .sessionFailed(let trouble): sessionFailed(trouble)
        case .authorizationRead(let authorized): authorizationRead(authorized)
        case .authorizationFailed(let trouble): authorizationFailed(trouble)
        case .update(let flags, let fix): update(flags, fix)
        case .updatesEnded: updatesEnded()
        case .updatesFailed(let trouble): updatesFailed(trouble)
        case .endAnswered(let reached): endAnswered(reached: reached)
        case .reconnectDue: reconnectDue()
        case .stop(let endingSession): stop(endingSession: endingSession)
        case .cutShort: cutShort()
        case .changeAccuracy(let accuracy): changeAccuracy(accuracy)
        }
    }
}

// MARK: The end

extension ClientRunCore {
    /// The session the run holds, in whatever phase.
    var session: String? {
        switch phase {
        case .deciding(let session, _), .awaitingPrompt(let session), .started(let session), .away(let session, _),
            .ending(let session, _, _):
            session
        case .opening(.recreating(let old), _): old
        case .waiting, .connecting, .opening, .finished: nil
        }
    }

    /// Whether the session's updates stream is open (or being opened).
    var streamOpen: Bool {
        switch phase {
        case .awaitingPrompt, .started, .deciding(_, streamOpen: true), .ending(_, streamOpen: true, _): true
        default: false
        }
    }

    /// Whether a stop has come (or a refusal, which stops the run): nothing is told the client any more.
    var isStopped: Bool {
        switch phase {
        case .waiting(endWhenBegun: true), .opening(_, endWhenMade: true), .ending, .finished: true
        default: false
        }
    }

    /// `Stop`, `DeleteClient` or the peer leaving: a run whose session is to end ends it, and finishes when its
    /// stream has ended or locd has answered; a run whose session is to linger finishes at once (G6).
    mutating func stop(endingSession: Bool) -> [Action] {
        guard !isStopped else { return [] }
        switch phase {
        case .waiting where endingSession:
            // Runs of a client never overlap: this one finishes once the one before it has.
            phase = .waiting(endWhenBegun: true)
            return []
        case .opening(let call, _) where endingSession:
            phase = .opening(call, endWhenMade: true)
            return []
        case .deciding, .awaitingPrompt, .started, .away:
            guard endingSession, let session else { return finish() }
            return end(session)
        default:
            return finish()
        }
    }

    /// locd refused the `Start`, or took location away from the started client for good: it hears why, and the
    /// session (if any) ends.
    mutating func refuse(_ refusal: StartRefusal) -> [Action] {
        var actions: [Action] = isStopped ? [] : [.tell(.refused(refusal))]
        if let session, !isStopped {
            actions += end(session)
        } else {
            actions += finish()
        }
        return actions
    }

    /// Ends the session: the stream bound to it ends with its final reply (U18). locd's answer is waited for, since
    /// an end sent behind a call locd is still carrying out waits its turn, and a connection closed meanwhile
    /// would take it away unheard: the session would linger (G6).
    mutating func end(_ session: String) -> [Action] {
        phase = .ending(session: session, streamOpen: streamOpen, endAnswered: false)
        return [.invalidate(session)]
    }

    mutating func endAnswered(reached: Bool) -> [Action] {
        guard case .ending(let session, let streamOpen, _) = phase else { return [] }
        // No connection to say it on: locd is away, and the stream's connection goes with it.
        guard reached, streamOpen else { return finish() }
        phase = .ending(session: session, streamOpen: true, endAnswered: true)
        return []
    }

    /// ``ClientRun/endGrace`` after a stop that ends the session: the run is cut short, unless the session or its
    /// end is still on its way from locd. A session on its way must be ended when it comes, and an end must be
    /// answered: cut short, the run would let its connection close first, and the session would linger for
    /// locd's relaunch window though the client's `Stop` was answered (a loaded locd answers after the grace).
    mutating func cutShort() -> [Action] {
        switch phase {
        case .opening(_, endWhenMade: true), .ending(_, _, endAnswered: false): []
        default: finish()
        }
    }

    /// Finishes the run if it has not: its stream closed, its session let go.
    mutating func finish() -> [Action] {
        guard phase != .finished else { return [] }
        var actions: [Action] = streamOpen ? [.closeUpdates] : []
        if let session { actions.append(.release(session)) }
        phase = .finished
        actions.append(.finished)
        return actions
    }
}
