import LocationTestSupport
import Testing

@testable import LocationCore

/// U18: a `LiveUpdates` stream bound to one of its app's sessions ends with that session.
@Suite("Live updates bound to a session")
struct BoundStreamTests {
    static let maps = "com.ex.maps"

    /// An authorized app with a fix, a `whenInUse` session and a stream bound to it.
    private func bound() -> (Harness, ClientID, SessionID, CallID) {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        h.send(.fix(Harness.here))
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        let stream = h.call(app, .liveUpdates(.standard, session: id.description))
        return (h, app, id, stream)
    }

    @Test("U18: a bound stream is an ordinary stream until its session is invalidated, then gets a final update")
    func endsWithItsSession() {
        var (h, app, id, stream) = bound()
        #expect(h.messages(to: stream) == [.update([], location: Harness.here)])
        h.call(app, .invalidateSession(id.description))
        #expect(h.ended(stream))
        #expect(h.last.contains { if case .end(stream, .update(_, location: nil)) = $0 { true } else { false } })
        #expect(h.core.apps[Self.maps]!.locationStreams.isEmpty)
        #expect(!h.core.isProviderRunning)
    }

    @Test("U18: a bound stream ends when its lingering session's window closes, or at Goodbye")
    func endsHoweverTheSessionEnds() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps)
        let other = h.launch(Self.maps)
        let id = h.create(old, .whenInUse)!
        let stream = h.call(other, .liveUpdates(.standard, session: id.description))
        #expect(!h.ended(stream))
        h.disconnect(old)
        h.advance(10)
        #expect(h.session(id) == nil)
        #expect(h.ended(stream))

        let mine = h.create(other, .whenInUse)!
        let second = h.call(other, .liveUpdates(.standard, session: mine.description))
        h.call(other, .goodbye)
        #expect(h.ended(second))
    }

    @Test("U18: an unknown or another app's session is NoSuchSession; an ended one SessionInvalidated")
    func badSessions() {
        var (h, app, id, _) = bound()
        h.set("com.ex.run", .whileUsing)
        let other = h.launch("com.ex.run")
        let theirs = h.call(other, .liveUpdates(.standard, session: id.description))
        #expect(h.error(of: theirs) == .noSuchSession(id: id.description))
        let unknown = h.call(app, .liveUpdates(.standard, session: "s9-9"))
        #expect(h.error(of: unknown) == .noSuchSession(id: "s9-9"))
        h.call(app, .invalidateSession(id.description))
        let ended = h.call(app, .liveUpdates(.standard, session: id.description))
        #expect(h.error(of: ended) == .sessionInvalidated(id: id.description))
        #expect(h.messages(to: ended).isEmpty)
    }

    @Test("U18: a bound stream closed by its client leaves its session, which ends later with nothing to end")
    func closedStreamIsForgotten() {
        var (h, app, id, stream) = bound()
        h.call(app, .setAppState(.foreground))
        let reader = h.launch(Self.maps)
        let again = h.call(reader, .liveUpdates(.standard, session: id.description))
        h.disconnect(reader)
        #expect(h.core.sessions[h.core.sessions.slot(of: id)!].boundStreams == [stream])
        h.call(app, .invalidateSession(id.description))
        #expect(h.ended(stream))
        #expect(!h.last.contains { if case .end(again, _) = $0 { true } else { false } })
    }
}
