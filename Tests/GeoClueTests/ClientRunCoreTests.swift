import Foundation
import JSON
import LocationClient
import Testing

@testable import LocationGeoClue

/// The run of one GeoClue `Start` on its own (``ClientRunCore``): events in, actions out, no bus, no locd, no clock.
@Suite("locd-geoclue's run of a Start, without a bus")
struct ClientRunCoreTests {
    static let app = "org.example.Maps"

    static let fix = GeoClueFix(
        Location(latitude: 52.52, longitude: 13.405, horizontalAccuracy: 10, timestamp: Date(timeIntervalSince1970: 1))
    )

    static func made(_ id: String, active: Bool = false, flags: DiagnosticFlags? = []) -> ClientRunCore.Event {
        .sessionMade(ClientRunCore.Session(id: id, active: active, flags: flags))
    }

    static let away = ClientRunCore.Trouble.unreachable(StartRefusal(message: "locd is not running"))

    /// A run begun and connected, its `CreateSession` on its way.
    static func creating(accuracy: LocationUpdate.DesiredAccuracy? = nil) -> ClientRunCore {
        var core = ClientRunCore(appID: app, accuracy: accuracy)
        #expect(core.handle(.begin) == [.connect])
        #expect(core.handle(.connected(resumable: [])) == [.create])
        return core
    }

    /// A started run of session `s1`, its stream open.
    static func started() -> ClientRunCore {
        var core = creating()
        #expect(
            core.handle(made("s1", active: true))
                == [.claim("s1"), .tell(.authorized), .openUpdates(session: "s1", accuracy: nil)]
        )
        return core
    }

    @Test("G1: Start → an active session is authorized at once, its stream opened, each fix delivered; Stop ends it")
    func startDecidedFixesStop() {
        var core = Self.started()
        #expect(core.handle(.update([], Self.fix)) == [.deliver(Self.fix)])
        #expect(core.handle(.update([.stationary], nil)) == [])
        #expect(core.handle(.stop(endingSession: true)) == [.invalidate("s1")])
        #expect(core.handle(.endAnswered(reached: true)) == [])
        #expect(!core.isFinished)
        // The stream ends with the session (U18): the run is done then.
        #expect(core.handle(.updatesEnded) == [.release("s1"), .finished])
        #expect(core.isFinished)
        #expect(core.handle(.update([], Self.fix)) == [])
    }

    @Test("G6: a lingering whenInUse session the Hello listed is taken back; one another client took is passed over")
    func takesBackLingering() {
        var core = ClientRunCore(appID: Self.app, accuracy: nil)
        #expect(core.handle(.begin) == [.connect])
        #expect(core.handle(.connected(resumable: ["old1", "old2"])) == [.takeBack("old1")])
        let taken = ClientRunCore.Trouble.refused(StartRefusal(message: "taken"))
        #expect(core.handle(.sessionFailed(taken)) == [.takeBack("old2")])
        #expect(core.handle(.sessionFailed(taken)) == [.create])
        #expect(core.handle(Self.made("s1", active: true)).contains(.tell(.authorized)))
    }

    @Test("G6: only explicit whenInUse sessions without a purpose key are taken back")
    func resumableSessions() throws {
        func lingering(
            _ id: String,
            _ kind: String,
            _ authorization: String,
            key: String? = nil
        ) throws
            -> LingeringSession
        {
            // A whole `Session`, as locd's Hello reply lists it (lingering, its client gone).
            var object: JSONObject = [
                "id": .string(id), "appId": .string("org.example.Maps"), "kind": .string(kind),
                "authorization": .string(authorization), "state": .string("lingering"),
                "diagnostic": .object(["mask": .int(0)]),
            ]
            if let key { object["fullAccuracyPurposeKey"] = .string(key) }
            return try #require(LingeringSession(wire: .object(object)))
        }
        let sessions = [
            try lingering("a", "explicit", "whenInUse"), try lingering("b", "implicit", "whenInUse"),
            try lingering("c", "explicit", "always"), try lingering("d", "explicit", "whenInUse", key: "Nav"),
            try lingering("e", "explicit", "whenInUse"),
        ]
        #expect(ClientRunCore.resumable(sessions) == ["a", "e"])
    }

    @Test("G6: a Stop while the session is on its way ends the session locd then makes, and waits for its answer")
    func stopWhileSessionOnItsWay() {
        var core = Self.creating()
        #expect(core.handle(.stop(endingSession: true)) == [])
        // The grace is over, but locd still owes the session: the run is not cut short.
        #expect(core.handle(.cutShort) == [])
        #expect(core.handle(Self.made("s1", active: true)) == [.claim("s1"), .invalidate("s1")])
        #expect(core.handle(.cutShort) == [])
        #expect(core.handle(.endAnswered(reached: true)) == [.release("s1"), .finished])
    }

    @Test("G6: a stop that ends the session is cut short after the grace once locd has answered what it owes")
    func cutShortAfterEndAnswered() {
        var core = Self.started()
        #expect(core.handle(.stop(endingSession: true)) == [.invalidate("s1")])
        #expect(core.handle(.endAnswered(reached: true)) == [])
        #expect(core.handle(.cutShort) == [.closeUpdates, .release("s1"), .finished])
    }

    @Test("G6: the client vanishing (its peer left the bus) leaves the session to linger: no InvalidateSession")
    func clientVanishes() {
        var core = Self.started()
        #expect(core.handle(.stop(endingSession: false)) == [.closeUpdates, .release("s1"), .finished])
        var opening = Self.creating()
        #expect(opening.handle(.stop(endingSession: false)) == [.finished])
        #expect(opening.handle(Self.made("s2", active: true)) == [])
    }

    @Test("G6: a Start after Stop begins once the run before it has finished")
    func startAfterStop() {
        var core = ClientRunCore(appID: Self.app, accuracy: nil)
        // Stopped before it began: it ends nothing, and finishes only when its turn comes.
        #expect(core.handle(.stop(endingSession: true)) == [])
        #expect(!core.isFinished)
        #expect(core.handle(.begin) == [.finished])
        var next = ClientRunCore(appID: Self.app, accuracy: nil)
        #expect(next.handle(.begin) == [.connect])
    }

    @Test("G3: a refusal in the session's diagnostic is told the client, and the session ends")
    func refusalEndsSession() {
        var core = Self.creating()
        #expect(
            core.handle(Self.made("s1", flags: [.authorizationDenied]))
                == [.claim("s1"), .tell(.refused(.denied(Self.app))), .invalidate("s1")]
        )
        #expect(core.handle(.endAnswered(reached: true)) == [.release("s1"), .finished])
    }

    @Test("G3: a refused CreateSession is told the client; nothing to end")
    func refusedCreate() {
        var core = Self.creating()
        let refusal = StartRefusal(message: "locd has no manifest")
        #expect(core.handle(.sessionFailed(.refused(refusal))) == [.tell(.refused(refusal)), .finished])
    }

    @Test("G3: a limited session with no prompt pending is decided by GetAuthorization")
    func limitedSessionReadsAuthorization() {
        var core = Self.creating()
        #expect(core.handle(Self.made("s1")) == [.claim("s1"), .readAuthorization])
        #expect(
            core.handle(.authorizationRead(authorized: true))
                == [.tell(.authorized), .openUpdates(session: "s1", accuracy: nil)]
        )
        var dismissed = Self.creating()
        _ = dismissed.handle(Self.made("s1"))
        #expect(
            dismissed.handle(.authorizationRead(authorized: false))
                == [.tell(.refused(.unanswered(Self.app))), .invalidate("s1")]
        )
    }

    // MARK: A pending prompt (G17, G18)

    /// A run whose session came with its app's prompt pending, the session's stream open.
    static func awaitingPrompt() -> ClientRunCore {
        var core = creating()
        #expect(
            core.handle(made("s1", flags: [.authorizationRequestInProgress]))
                == [.claim("s1"), .openUpdates(session: "s1", accuracy: nil)]
        )
        #expect(core.isAwaitingPrompt)
        return core
    }

    @Test("G18: a prompt answered allow decides on the session's own stream; its location is the client's first fix")
    func promptAllowedOnTheStream() {
        var core = Self.awaitingPrompt()
        #expect(core.handle(.update([.authorizationRequestInProgress], nil)) == [])
        #expect(core.handle(.update([], Self.fix)) == [.tell(.authorized), .deliver(Self.fix)])
        #expect(!core.isAwaitingPrompt)
        // The same stream goes on: no second stream, no GetAuthorization.
        #expect(core.handle(.update([], Self.fix)) == [.deliver(Self.fix)])
    }

    @Test("G18: allowed while the provider has no fix (locationUnavailable, D9) is authorized without a location")
    func promptAllowedWithoutFix() {
        var core = Self.awaitingPrompt()
        #expect(core.handle(.update([.locationUnavailable], nil)) == [.tell(.authorized)])
        #expect(core.handle(.update([], Self.fix)) == [.deliver(Self.fix)])
    }

    @Test("G18: a prompt answered deny refuses the Start and ends the session; the stream's end finishes the run")
    func promptDenied() {
        var core = Self.awaitingPrompt()
        #expect(
            core.handle(.update([.authorizationDenied], nil))
                == [.tell(.refused(.denied(Self.app))), .invalidate("s1")]
        )
        #expect(core.handle(.updatesEnded) == [.release("s1"), .finished])
    }

    @Test("G18: a prompt dismissed unanswered (no location, nothing held back) refuses the Start naming an agent")
    func promptDismissed() {
        var core = Self.awaitingPrompt()
        #expect(
            core.handle(.update([.accuracyLimited], nil))
                == [.tell(.refused(.unanswered(Self.app))), .invalidate("s1")]
        )
    }

    @Test("G18: an update that cannot tell (stationary) is decided by GetAuthorization, on the stream already open")
    func promptUndecidedByUpdate() {
        var core = Self.awaitingPrompt()
        #expect(core.handle(.update([.stationary], nil)) == [.readAuthorization])
        #expect(!core.isAwaitingPrompt)
        #expect(core.handle(.authorizationRead(authorized: true)) == [.tell(.authorized)])
        #expect(core.handle(.update([], Self.fix)) == [.deliver(Self.fix)])
    }

    @Test("G18: the session ending before the prompt is answered refuses the Start")
    func sessionEndsWhilePromptPending() {
        var core = Self.awaitingPrompt()
        #expect(
            core.handle(.updatesEnded) == [.tell(.refused(.ended(Self.app))), .invalidate("s1")]
        )
        #expect(core.handle(.endAnswered(reached: true)) == [.release("s1"), .finished])
    }

    @Test("G17: a Stop while the prompt is pending ends the session; the Start is told nothing more")
    func stopWhilePromptPending() {
        var core = Self.awaitingPrompt()
        #expect(core.handle(.stop(endingSession: true)) == [.invalidate("s1")])
        #expect(core.handle(.update([], Self.fix)) == [])
        #expect(core.handle(.updatesEnded) == [.release("s1"), .finished])
    }

    // MARK: locd taking location away, and going away (G16)

    @Test("G16: updates carrying a denial withhold the client's location, told once; the next location resumes it")
    func locationWithheld() {
        var core = Self.started()
        #expect(core.handle(.update([.authorizationDenied], nil)) == [.tell(.withheld(.denied(Self.app)))])
        #expect(core.handle(.update([.authorizationDenied], nil)) == [])
        #expect(core.handle(.update([], Self.fix)) == [.tell(.resumed), .deliver(Self.fix)])
    }

    @Test("G16: locd going away → withheld, reconnect 1, 2, 4, 8, 8 s; the session resumed and its stream reopened")
    func locdAwayAndBack() {
        var core = Self.started()
        #expect(
            core.handle(.updatesFailed(Self.away))
                == [.tell(.withheld(.locdAway(Self.app))), .scheduleReconnect(seconds: 1)]
        )
        var delays: [Double] = []
        for _ in 0..<4 {
            #expect(core.handle(.reconnectDue) == [.resume("s1")])
            // A second firing while the resume is on its way does nothing.
            #expect(core.handle(.reconnectDue) == [])
            guard case .scheduleReconnect(let seconds) = core.handle(.sessionFailed(Self.away)).first else {
                Issue.record("no reconnect scheduled")
                return
            }
            delays.append(seconds)
        }
        #expect(delays == [2, 4, 8, 8])
        #expect(core.handle(.reconnectDue) == [.resume("s1")])
        #expect(core.handle(Self.made("s1", active: true)) == [.openUpdates(session: "s1", accuracy: nil)])
        #expect(core.handle(.update([], Self.fix)) == [.tell(.resumed), .deliver(Self.fix)])
        // A fix resets the backoff.
        #expect(
            core.handle(.updatesFailed(Self.away)) == [
                .tell(.withheld(.locdAway(Self.app))), .scheduleReconnect(seconds: 1),
            ]
        )
    }

    @Test("G16: a session locd no longer has is created again, and the client goes on with the new one")
    func recreatedAfterRestart() {
        var core = Self.started()
        _ = core.handle(.updatesFailed(Self.away))
        _ = core.handle(.reconnectDue)
        let gone = ClientRunCore.Trouble.sessionGone(StartRefusal(message: "no such session"))
        #expect(core.handle(.sessionFailed(gone)) == [.create])
        #expect(
            core.handle(Self.made("s2", active: true))
                == [.release("s1"), .claim("s2"), .openUpdates(session: "s2", accuracy: nil)]
        )
        #expect(core.handle(.stop(endingSession: true)) == [.invalidate("s2")])
    }

    @Test("G16: a Stop while locd is away ends the session when locd can be reached, and no reconnect follows")
    func stopWhileAway() {
        var core = Self.started()
        _ = core.handle(.updatesFailed(Self.away))
        #expect(core.handle(.stop(endingSession: true)) == [.invalidate("s1")])
        #expect(core.handle(.reconnectDue) == [])
        #expect(core.handle(.endAnswered(reached: false)) == [.release("s1"), .finished])
    }

    @Test("G16: locd ending the session, or refusing its stream, stops a started client for good")
    func realStops() {
        var ended = Self.started()
        #expect(ended.handle(.updatesEnded) == [.tell(.refused(.updatesEnded(Self.app))), .invalidate("s1")])
        var refused = Self.started()
        let limit = StartRefusal(message: "too many connections", isLimit: true)
        #expect(refused.handle(.updatesFailed(.refused(limit))) == [.tell(.refused(limit)), .invalidate("s1")])
    }

    // MARK: Accuracy (G2, G12)

    @Test("G12: an accuracy change reopens the stream at the new accuracy; before the stream, it is only kept")
    func accuracyChange() {
        var core = Self.creating()
        #expect(core.handle(.changeAccuracy(.reduced)) == [])
        #expect(
            core.handle(Self.made("s1", active: true))
                == [.claim("s1"), .tell(.authorized), .openUpdates(session: "s1", accuracy: .reduced)]
        )
        #expect(core.handle(.changeAccuracy(.reduced)) == [])
        #expect(core.handle(.changeAccuracy(nil)) == [.closeUpdates, .openUpdates(session: "s1", accuracy: nil)])
    }
}
