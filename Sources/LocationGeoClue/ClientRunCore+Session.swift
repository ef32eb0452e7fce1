import LocationClient

// The session and locd's decision (SEMANTICS G1, G3, G6, G18): a lingering session taken back or a new one, then
// authorized at once when locd reports it `active`, refused by its diagnostic, decided by its stream's updates while
// its prompt is pending, or else by `GetAuthorization`.
extension ClientRunCore {
    mutating func begin() -> [Action] {
        guard case .waiting(let endWhenBegun) = phase else { return [] }
        if endWhenBegun { return finish() }
        phase = .connecting
        return [.connect]
    }

    mutating func connected(_ resumable: [String]) -> [Action] {
        guard phase == .connecting else { return [] }
        return takeBackOrCreate(resumable)
    }

    /// A lingering `whenInUse` session the app left when an earlier peer of it left the bus (a relaunch inside
    /// locd's relaunch window, SEMANTICS L4, G6): taken back with no new prompt; else a new session.
    private mutating func takeBackOrCreate(_ candidates: [String]) -> [Action] {
        guard let first = candidates.first else {
            phase = .opening(.creating, endWhenMade: false)
            return [.create]
        }
        phase = .opening(.takingBack(rest: Array(candidates.dropFirst())), endWhenMade: false)
        return [.takeBack(first)]
    }

    mutating func sessionMade(_ made: Session) -> [Action] {
        switch phase {
        case .opening(.recreating(let old), let endWhenMade):
            var actions: [Action] = [.release(old), .claim(made.id)]
            if endWhenMade {
                // A stop came meanwhile: the new session ends too.
                phase = .ending(session: made.id, streamOpen: false, endAnswered: false)
                return actions + [.invalidate(made.id)]
            }
            phase = .started(session: made.id)
            actions.append(.openUpdates(session: made.id, accuracy: accuracy))
            return actions
        case .opening(_, let endWhenMade):
            let actions: [Action] = [.claim(made.id)]
            if endWhenMade { return actions + end(made.id) }
            return actions + decide(made)
        case .away(let session, resuming: true):
            // locd came back and gave the session back: its updates again, no new prompt (G16).
            phase = .started(session: session)
            return [.openUpdates(session: session, accuracy: accuracy)]
        default:
            return []
        }
    }

    mutating func sessionFailed(_ trouble: Trouble) -> [Action] {
        switch phase {
        case .opening(.takingBack(let rest), let endWhenMade):
            // Another process of the app may have taken it since that Hello: then try the next.
            if endWhenMade { return finish() }
            return takeBackOrCreate(rest)
        case .opening:
            return refuse(trouble.refusal)
        case .away(let session, resuming: true):
            switch trouble {
            case .sessionGone:
                // Its relaunch window closed while locd was away, or it was never stored: a new one.
                phase = .opening(.recreating(old: session), endWhenMade: false)
                return [.create]
            case .unreachable: return scheduleReconnect(session)
            case .refused(let refusal): return refuse(refusal)
            }
        default:
            return []
        }
    }

    /// The session locd created or gave back. One locd reports `active` is authorized (SEMANTICS D12); otherwise
    /// its diagnostic decides, or while the app's prompt is pending the updates of its stream (G18).
    private mutating func decide(_ made: Session) -> [Action] {
        if made.active { return authorized(made.id, streamOpen: false) }
        guard let flags = made.flags else {
            phase = .deciding(session: made.id, streamOpen: false)
            return refuse(StartRefusal.unexpectedReply("a session without a diagnostic", app: appID))
        }
        if flags.contains(.authorizationRequestInProgress) {
            phase = .awaitingPrompt(session: made.id)
            return [.openUpdates(session: made.id, accuracy: accuracy)]
        }
        phase = .deciding(session: made.id, streamOpen: false)
        if let refusal = StartRefusal.of(flags, app: appID) { return refuse(refusal) }
        // No prompt pending: authorized, or its prompt was dismissed at its timeout (the record unchanged).
        return [.readAuthorization]
    }

    /// The client starts: it hears so, and its updates come on the session's stream.
    mutating func authorized(_ session: String, streamOpen: Bool) -> [Action] {
        phase = .started(session: session)
        let actions: [Action] = [.tell(.authorized)]
        return streamOpen ? actions : actions + [.openUpdates(session: session, accuracy: accuracy)]
    }

    mutating func authorizationRead(_ isAuthorized: Bool) -> [Action] {
        guard case .deciding(let session, let streamOpen) = phase else { return [] }
        if isAuthorized { return authorized(session, streamOpen: streamOpen) }
        return refuse(.unanswered(appID))
    }

    mutating func authorizationFailed(_ trouble: Trouble) -> [Action] {
        guard case .deciding = phase else { return [] }
        return refuse(trouble.refusal)
    }
}
