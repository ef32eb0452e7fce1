import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS F9: the core's memory follows the sessions that live, not those ever created.
@Suite("Session history")
struct SessionHistoryTests {
    @Test("F9: 20,000 sessions created and invalidated leave the session table no larger than its window")
    func churnIsBounded() throws {
        var h = Harness()
        h.core.sessions = SessionTable(epoch: 1, window: 1024)
        let app = h.launch("com.ex.maps")
        // One session that lives through all the churn, to be found after its number left the window.
        let createdOld = h.create(app, .noAuthorization)
        let old = try #require(createdOld)
        var ended: [SessionID] = []
        for _ in 0..<20_000 {
            let created = h.create(app, .noAuthorization)
            let id = try #require(created)
            h.call(app, .invalidateSession(id.description))
            ended.append(id)
        }
        #expect(h.core.sessions.numbered.count == 1024)
        #expect(h.core.sessions.others.count == 1, "only the one live session older than the window")
        #expect(h.core.sessions.count == 1)
        // The live session is still found, and ends as any other.
        #expect(h.session(old)?.state != nil)
        let resumed = h.call(app, .resumeSession(old.description))
        #expect(h.error(of: resumed) == nil)
        // S3 within the window: an ended id of the app answers SessionInvalidated.
        let recent = h.call(app, .resumeSession(ended.last!.description))
        #expect(h.error(of: recent) == .sessionInvalidated(id: ended.last!.description))
        // Past the window it is answered as an id never given: NoSuchSession, to every app alike (I2).
        let forgotten = h.call(app, .resumeSession(ended.first!.description))
        #expect(h.error(of: forgotten) == .noSuchSession(id: ended.first!.description))
        let invalidated = h.call(app, .invalidateSession(old.description))
        #expect(h.reply(to: invalidated) == .empty)
        #expect(h.core.sessions.others.isEmpty)
        #expect(h.core.sessions.count == 0)
    }

    @Test("F9: the default window remembers a million numbers, 8 MiB")
    func defaultWindow() {
        #expect(SessionTable.defaultWindow == 1 << 20)
        #expect(MemoryLayout<SessionTable.Numbered>.stride * SessionTable.defaultWindow == 8 << 20)
    }
}
