import Foundation
import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS F6: a connection's streams, however many, are closed in time linear in their number, and leave
/// nothing behind in the lists of their app and session.
@Suite("Stream clean-up")
struct StreamCleanupTests {
    @Test(
        "F6: a connection with 50,000 diagnostics and 50,000 authorization streams closes at once and leaves no trace"
    )
    func manyStreamsClose() throws {
        var h = Harness()
        let flooder = h.launch("com.ex.maps")
        let owner = h.launch("com.ex.maps")
        let created = h.create(owner, .noAuthorization)
        let id = try #require(created)
        let count = 50_000
        for _ in 0..<count {
            h.call(flooder, .sessionDiagnostics(id.description))
            h.call(flooder, .watchAuthorization)
        }
        #expect(h.core.streams.count == 2 * count)
        let app = try #require(h.core.apps.handle(AppKey.noUser("com.ex.maps")))
        #expect(h.core.apps[app].authorizationWatchers.count == count)
        let started = Date()
        h.disconnect(flooder)
        let elapsed = Date().timeIntervalSince(started)
        #expect(h.core.streams.isEmpty)
        #expect(h.core.apps[app].authorizationWatchers.isEmpty)
        let slot = try #require(h.core.sessions.slot(of: id))
        #expect(h.core.sessions[slot].diagnosticStreams.isEmpty)
        // A bound, not a measurement: one by one, each stream searched and shifted lists of 50,000, for
        // minutes; linear, it is a fraction of a second even unoptimised.
        #expect(elapsed < 5, "closing 100,000 streams took \(elapsed) s")
    }

    @Test("F6: invalidating a session watched by 50,000 streams of one connection ends them all at once")
    func manyStreamsEnd() throws {
        var h = Harness()
        let flooder = h.launch("com.ex.maps")
        let created = h.create(flooder, .noAuthorization)
        let id = try #require(created)
        let count = 50_000
        for _ in 0..<count { h.call(flooder, .sessionDiagnostics(id.description)) }
        let started = Date()
        let invalidate = h.call(flooder, .invalidateSession(id.description))
        let elapsed = Date().timeIntervalSince(started)
        #expect(h.reply(to: invalidate) == .empty)
        #expect(h.core.streams.isEmpty)
        #expect(h.core.clients[flooder]?.streams.isEmpty == true)
        #expect(h.last.filter { if case .end = $0 { true } else { false } }.count == count)
        #expect(elapsed < 5, "ending 50,000 streams took \(elapsed) s")
    }
}
