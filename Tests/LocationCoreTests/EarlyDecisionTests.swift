import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS R11 as the core decides it: a session call asked with `more` hears its session as soon as it is
/// decided, in a message the core puts just before the reply that acknowledges it once stored.
@Suite("Early decisions")
struct EarlyDecisionTests {
    static let maps = "com.ex.maps"
    static let run = "com.ex.run"

    /// The decided session of `call` among the last event's actions and its place, and the place of its reply.
    private func places(_ h: Harness, _ call: CallID) -> (decided: SessionView?, at: Int?, reply: Int?) {
        var decided: SessionView?
        var at: Int?
        var reply: Int?
        for (index, action) in h.last.enumerated() {
            switch action {
            case .emit(call, .decided(let session)):
                decided = session
                at = index
            case .reply(call, _): reply = index
            default: break
            }
        }
        return (decided, at, reply)
    }

    @Test("R11: a CreateSession asked with more gets its session as decided, just before the reply that stores it")
    func createSessionDecidedFirst() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let call = h.call(app, .createSession(.whenInUse, purposeKey: nil, more: true))
        guard case .session(let view)? = h.reply(to: call) else {
            Issue.record("CreateSession failed: \(h.last)")
            return
        }
        let found = places(h, call)
        #expect(found.decided == view)
        #expect(found.at != nil && found.reply != nil && found.at! + 1 == found.reply!)
        // The session's write comes before both: the shell reads the writes before the messages.
        let write = h.last.firstIndex { if case .persist(.session) = $0 { true } else { false } }
        #expect(write != nil && found.at != nil && write! < found.at!)
    }

    @Test("R11: without more, a CreateSession gets its reply alone")
    func createSessionWithoutMore() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let call = h.call(app, .createSession(.whenInUse, purposeKey: nil))
        #expect(h.reply(to: call) != nil)
        #expect(places(h, call).decided == nil)
    }

    @Test("R11: a ResumeSession asked with more gets the session it took back as decided, before its reply")
    func resumeSessionDecidedFirst() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps)
        let id = h.create(old, .whenInUse)!
        h.disconnect(old)
        let new = h.launch(Self.maps)
        let call = h.call(new, .resumeSession(id.description, more: true))
        guard case .session(let view)? = h.reply(to: call) else {
            Issue.record("ResumeSession failed: \(h.last)")
            return
        }
        #expect(view.id == id)
        let found = places(h, call)
        #expect(found.decided == view)
        #expect(found.at != nil && found.reply != nil && found.at! + 1 == found.reply!)
    }

    @Test("R11, R1: a session call whose event writes a decision gets no early session, only its reply")
    func noEarlySessionWithADecision() {
        var h = Harness()
        h.set(Self.run, .whileUsing)
        let runner = h.launch(Self.run)
        let maps = h.launch(Self.maps)
        _ = h.create(maps, .whenInUse)
        h.answer(Self.maps, .allowOnce)
        h.call(maps, .setAppState(.background))
        // The grace of maps' Allow Once has passed, and nothing woke the core: the session call's event ends it.
        h.now = h.now.adding(.seconds(10))
        let call = h.call(runner, .createSession(.whenInUse, purposeKey: nil, more: true))
        #expect(h.persisted.contains(.record(AppKey.noUser(Self.maps), AuthorizationRecord())))
        guard case .session? = h.reply(to: call) else {
            Issue.record("CreateSession failed: \(h.last)")
            return
        }
        #expect(places(h, call).decided == nil)
    }

    @Test("R11: a refused session call asked with more hears only its error")
    func refusedCallHearsNoSession() {
        var h = Harness()
        let app = h.launch(Self.maps)
        let call = h.call(app, .resumeSession("0-1", more: true))
        #expect(h.error(of: call) != nil)
        #expect(places(h, call).decided == nil)
    }
}
