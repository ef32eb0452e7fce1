import LocationTestSupport
import Testing

@testable import LocationCore

/// The rules where the core's storage could show through: sessions kept in reused slots grouped by app,
/// ended ids told from the creating app, and diagnostics streams kept partly inline in their session.
@Suite("Storage")
struct StorageTests {
    static let maps = "com.ex.maps"
    static let run = "com.ex.run"

    @Test("S1, S3: sessions of two apps, ended and created past a run of slots, list in creation order")
    func slotReuseKeepsCreationOrder() {
        var h = Harness(configuration: CoreConfiguration(maxSessionsPerApp: 200))
        h.set(Self.maps, .whileUsing)
        h.set(Self.run, .whileUsing)
        let maps = h.launch(Self.maps)
        let run = h.launch(Self.run)
        var live: [ClientID: [SessionID]] = [maps: [], run: []]
        for round in 0..<40 {
            for client in [maps, run] { live[client]!.append(h.create(client, .whenInUse)!) }
            // End every third session of each app, the oldest first, so freed slots sit between live ones.
            if round % 3 == 2 {
                for client in [maps, run] {
                    let ended = live[client]!.removeFirst()
                    h.call(client, .invalidateSession(ended.description))
                }
            }
        }
        for client in [maps, run] {
            let listed = h.call(client, .listSessions)
            guard case .sessions(let views)? = h.reply(to: listed) else {
                Issue.record("ListSessions failed: \(h.last)")
                continue
            }
            #expect(views.map(\.id) == live[client]!)
            #expect(views.allSatisfy { $0.appID == (client == maps ? Self.maps : Self.run) })
        }
        #expect(h.core.sessionIDs == (live[maps]! + live[run]!).sorted())
    }

    @Test("S3, I2: an ended id answers SessionInvalidated to its app and NoSuchSession to another")
    func endedIDBelongsToItsApp() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        h.set(Self.run, .whileUsing)
        let maps = h.launch(Self.maps)
        let run = h.launch(Self.run)
        let id = h.create(maps, .whenInUse)!
        h.call(maps, .invalidateSession(id.description))
        // The slot goes to the next session of the same app; the old id must not find it.
        let next = h.create(maps, .whenInUse)!

        let own = h.call(maps, .resumeSession(id.description))
        #expect(h.error(of: own) == .sessionInvalidated(id: id.description))
        let other = h.call(run, .invalidateSession(id.description))
        #expect(h.error(of: other) == .noSuchSession(id: id.description))
        let notYet = SessionID(epoch: id.epoch, number: next.number + 1)
        let future = h.call(maps, .invalidateSession(notYet.description))
        #expect(h.error(of: future) == .noSuchSession(id: notYet.description))
        #expect(h.session(next)?.state == .active)
    }

    @Test("S3, R3: a restored session that ends answers SessionInvalidated; a new one of the same number is another")
    func restoredIDs() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let old = h.launch(Self.maps)
        let restored = h.create(old, .whenInUse)!
        h.core = LocationCore(
            configuration: h.core.configuration,
            manifests: Harness.defaultManifests,
            restoring: h.core.snapshot,
            epoch: h.core.epoch + 1,
            at: h.now
        )

        let back = h.launch(Self.maps)
        let fresh = h.create(back, .noAuthorization)!
        #expect(fresh.number == restored.number && fresh.epoch != restored.epoch)
        #expect(h.session(restored)?.state == .lingering)
        h.call(back, .invalidateSession(restored.description))
        let again = h.call(back, .resumeSession(restored.description))
        #expect(h.error(of: again) == .sessionInvalidated(id: restored.description))
        #expect(h.session(fresh) != nil)
    }

    @Test("D11, S3: a session's second and third diagnostics streams report, close and end like its first")
    func severalDiagnosticsStreams() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let app = h.launch(Self.maps)
        let id = h.create(app, .whenInUse)!
        let watchers = (0..<3).map { _ in h.launch(Self.maps) }
        let streams = watchers.map { h.call($0, .sessionDiagnostics(id.description)) }
        h.call(app, .setAppState(.background))
        h.advance(10)
        for stream in streams { #expect(h.masks(on: stream) == [[], [.insufficientlyInUse]]) }

        // The first stream's connection goes: the other two, one now in its place, go on reporting.
        h.disconnect(watchers[0])
        h.call(app, .setAppState(.foreground))
        #expect(h.masks(on: streams[0]) == [[], [.insufficientlyInUse]])
        #expect(!h.ended(streams[0]))
        for stream in streams.dropFirst() { #expect(h.masks(on: stream) == [[], [.insufficientlyInUse], []]) }

        h.call(app, .invalidateSession(id.description))
        for stream in streams.dropFirst() {
            #expect(h.ended(stream))
            #expect(h.messages(to: stream) == [.diagnostic([], ended: true)])
        }
        #expect(!h.ended(streams[0]))
    }
}
