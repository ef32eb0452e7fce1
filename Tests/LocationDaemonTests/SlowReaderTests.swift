import Foundation
import LocationTestSupport
import Testing
import Varlink

/// PROTOCOL "Limits and bad input": a client that does not read its stream cannot grow locd's memory.
@Suite("Slow readers", .serialized)
struct SlowReaderTests {
    /// A small write buffer (the lag threshold is half of it), so that a thousand replies of ~130 bytes
    /// overflow it and the socket's own buffer together.
    static let settings = DaemonProcess.fastLifecycle + "\n[limits]\nmax-write-buffer = 8192\n"
    static let flips = 1000

    /// Flips location services `count` times, ending on; each flip changes every session's diagnostic.
    func flipServices(_ admin: VarlinkClient, count: Int) throws {
        for flip in 0..<count {
            try admin.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(flip % 2 == 1)])
        }
    }

    @Test("PROTOCOL: a diagnostics stream nobody reads keeps only its newest value and stays open")
    func diagnosticsCoalesce() throws {
        let daemon = try DaemonProcess(settings: Self.settings)
        try daemon.start()
        let watched = try daemon.watchedSession()
        #expect(watched.firstFlags == [])
        let flips = Self.flips
        try flipServices(watched.admin, count: flips)
        // A final state seen nowhere before: denied with services on.
        try watched.admin.call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("never")]
        )

        var received: [[String]] = [watched.firstFlags]
        while received.last != ["authorizationDenied"] {
            received.append(try watched.watcher.next().flags)
        }
        #expect(received.count < flips / 2, "\(received.count) diagnostics reached the reader of \(flips + 1) changes")
        for (previous, next) in zip(received, received.dropFirst()) {
            #expect(previous != next, "D11: the same mask twice in a row")
        }
        // Still the same connection: coalescing, not the max-write-buffer close, bounded it.
        let app = try daemon.app("com.ex.maps")
        #expect(try app.call("io.locd.App.ListSessions")["sessions"]?.arrayValue?.count == 1)
        try watched.admin.call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("whileUsing")]
        )
        #expect(try watched.watcher.next().flags == [])
        #expect(daemon.stop() == 0)
    }

    @Test("PROTOCOL: an event stream nobody reads is closed past max-write-buffer; other clients are served")
    func eventStreamClosed() throws {
        let daemon = try DaemonProcess(settings: Self.settings)
        try daemon.start()
        let watcher = try daemon.connect()
        _ = try watcher.send(VarlinkCall(method: "io.locd.Admin.Watch", parameters: [:], more: true))
        let watched = try daemon.watchedSession()
        // Events are never dropped (each is a distinct fact), so the lagging reader is cut off instead.
        try flipServices(watched.admin, count: Self.flips)
        var delivered = 0
        #expect(throws: VarlinkClient.ClientError.closed) {
            while true {
                _ = try watcher.receive()
                delivered += 1
            }
        }
        #expect(delivered < Self.flips, "all \(delivered) events reached a reader that never read")
        try watched.admin.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(false)])
        #expect(try watched.watcher.next(until: { $0.flags.contains("authorizationDeniedGlobally") }).flags.count == 2)
        #expect(daemon.stop() == 0)
    }

    @Test("F8: with max-write-buffer = 1 a final reply still arrives whole; every stream message closes its connection")
    func smallestWriteBuffer() throws {
        let daemon = try DaemonProcess(settings: DaemonProcess.fastLifecycle + "\n[limits]\nmax-write-buffer = 1\n")
        try daemon.start()
        for _ in 0..<3 {
            // A peer that has caught up gets its final reply whatever its size: it is the one it holds (F8).
            let client = try daemon.app("com.ex.maps")
            #expect(try client.call("org.varlink.service.GetInfo")["vendor"] == .string("locd"))
            // A stream's messages count against the limit: the first is over it.
            _ = try client.send(VarlinkCall(method: "io.locd.App.WatchAuthorization", more: true))
            #expect(throws: VarlinkClient.ClientError.closed) { _ = try client.receive() }
        }
        #expect(daemon.stop() == 0)
    }
}
