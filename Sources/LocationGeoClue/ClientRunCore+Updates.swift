import LocationClient

// The session's updates stream (SEMANTICS U18, G16, G18): the decision while the app's prompt is pending, then the
// client's fixes; locd taking location away for now, locd going away and coming back.
extension ClientRunCore {
    /// The flags that hold back an authorized app's location without saying it is authorized (U1): an update that
    /// carries one and no location cannot tell an answered prompt from a dismissed one (G18).
    static let undecidingFlags: DiagnosticFlags = [.stationary, .insufficientlyInUse, .serviceSessionRequired]

    mutating func update(_ flags: DiagnosticFlags, _ fix: GeoClueFix?) -> [Action] {
        switch phase {
        case .awaitingPrompt(let session): return promptUpdate(session, flags, fix)
        case .started: return startedUpdate(flags, fix)
        default: return []
        }
    }

    /// An update while the app's prompt is pending: the first without `authorizationRequestInProgress` decides
    /// (G18).
    private mutating func promptUpdate(_ session: String, _ flags: DiagnosticFlags, _ fix: GeoClueFix?) -> [Action] {
        guard !flags.contains(.authorizationRequestInProgress) else { return [] }
        if let refusal = StartRefusal.of(flags, app: appID) { return refuse(refusal) }
        if let fix { return authorized(session, streamOpen: true) + [.deliver(fix)] }
        // Only an authorized app's stream says its provider has no fix (D9).
        if flags.contains(.locationUnavailable) { return authorized(session, streamOpen: true) }
        if !flags.isDisjoint(with: Self.undecidingFlags) {
            phase = .deciding(session: session, streamOpen: true)
            return [.readAuthorization]
        }
        // Not authorized, not refused, not asking: the prompt was dismissed unanswered (P8, P14).
        return refuse(.unanswered(appID))
    }

    /// An update of a started client: a fix to deliver, or locd taking location away for now (G16).
    private mutating func startedUpdate(_ flags: DiagnosticFlags, _ fix: GeoClueFix?) -> [Action] {
        reconnectDelay = Self.reconnectSeconds.first
        if let refusal = StartRefusal.of(flags, app: appID) { return withhold(refusal) }
        guard let fix else { return [] }
        var actions: [Action] = []
        if withheldBecause != nil {
            withheldBecause = nil
            actions.append(.tell(.resumed))
        }
        actions.append(.deliver(fix))
        return actions
    }

    /// The stream's final reply: the session ended, by the run's own end or by locd (U18).
    mutating func updatesEnded() -> [Action] {
        switch phase {
        case .ending: return streamGone()
        case .awaitingPrompt(let session), .deciding(let session, streamOpen: true):
            phase = .deciding(session: session, streamOpen: false)
            return refuse(.ended(appID))
        case .started(let session):
            phase = .deciding(session: session, streamOpen: false)
            return refuse(.updatesEnded(appID))
        default: return []
        }
    }

    /// The stream failed: locd refused it (a decision, which G16 keeps as a real stop), or its connection ended
    /// without the session's end (locd went away: the client keeps its session and waits for locd to come back).
    mutating func updatesFailed(_ trouble: Trouble) -> [Action] {
        switch phase {
        case .ending: return streamGone()
        case .awaitingPrompt(let session), .deciding(let session, streamOpen: true):
            phase = .deciding(session: session, streamOpen: false)
            return refuse(trouble.refusal)
        case .started(let session):
            guard case .unreachable = trouble else {
                phase = .deciding(session: session, streamOpen: false)
                return refuse(trouble.refusal)
            }
            return withhold(.locdAway(appID)) + scheduleReconnect(session)
        default: return []
        }
    }

    /// The stream of a run that ends its session is over: the run is done, its end answered or not (the stream
    /// ends after locd has carried the end out).
    private mutating func streamGone() -> [Action] {
        guard case .ending(let session, _, let endAnswered) = phase else { return [] }
        phase = .ending(session: session, streamOpen: false, endAnswered: endAnswered)
        return finish()
    }

    /// Tells, once for each reason in a row, that the started client's location is taken away for now.
    private mutating func withhold(_ refusal: StartRefusal) -> [Action] {
        guard withheldBecause != refusal.message else { return [] }
        withheldBecause = refusal.message
        return [.tell(.withheld(refusal))]
    }

    /// Tries to reach locd again after the current delay, doubled for the next time (G16).
    mutating func scheduleReconnect(_ session: String) -> [Action] {
        phase = .away(session: session, resuming: false)
        let delay = reconnectDelay
        reconnectDelay = min(delay * 2, Self.reconnectSeconds.most)
        return [.scheduleReconnect(seconds: delay)]
    }

    /// Takes the session back on the app's control connection (made again, with the same `Hello`, if locd closed
    /// it); its updates follow.
    mutating func reconnectDue() -> [Action] {
        guard case .away(let session, resuming: false) = phase else { return [] }
        phase = .away(session: session, resuming: true)
        return [.resume(session)]
    }

    /// Asks the updates with `accuracy` from now on: a stream of another accuracy is ended and opened again (only
    /// closing its connection ends a stream, so the new one goes on another).
    mutating func changeAccuracy(_ accuracy: LocationUpdate.DesiredAccuracy?) -> [Action] {
        guard accuracy != self.accuracy else { return [] }
        self.accuracy = accuracy
        guard streamOpen, !isEnding, let session else { return [] }
        return [.closeUpdates, .openUpdates(session: session, accuracy: accuracy)]
    }

    private var isEnding: Bool {
        if case .ending = phase { return true }
        return false
    }
}
