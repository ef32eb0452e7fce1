import Foundation
import JSON
import Testing
import Varlink

@testable import LocationGeoClue

#if canImport(Glibc)
import Glibc
#endif

/// locd-geoclue's connection to locd on its own (``LocdLink``): a socket pair stands for the connection, the test is
/// locd on the far end, and it also plays the bus thread, calling `readable()` and `writable()` as a wait would.
@Suite("locd-geoclue's connections to locd")
struct LocdLinkTests {
    /// Records what the link asks of the thread that serves it.
    final class Watcher: LinkWatcher {
        var watching: [UInt64: Int32] = [:]
        var wantsWritable: Set<UInt64> = []
        private var next: UInt64 = 1

        func watch(_ descriptor: Int32, _ link: LocdLink) -> UInt64? {
            defer { next += 1 }
            watching[next] = descriptor
            return next
        }

        func watchWritable(_ descriptor: Int32, token: UInt64, _ writable: Bool) {
            if writable { wantsWritable.insert(token) } else { wantsWritable.remove(token) }
        }

        func unwatch(_ descriptor: Int32, token: UInt64) {
            watching[token] = nil
            wantsWritable.remove(token)
        }
    }

    /// What the handlers heard, in order: a reply's method-free summary or the failure's words.
    final class Heard {
        var events: [String] = []

        func handler(_ name: String) -> LocdLink.Handler {
            { [self] result in
                switch result {
                case .success(let reply) where reply.error != nil: events.append("\(name): error \(reply.error ?? "")")
                case .success(let reply):
                    let value = reply.parameters["n"]?.intValue.map(String.init) ?? "-"
                    events.append("\(name): \(value)\(reply.continues ? " more" : "")")
                case .failure(let failure): events.append("\(name): failed: \(failure.description)")
                }
            }
        }
    }

    /// A link on one end of a socket pair, its first reply awaited as `hello`; the other end, `locd`, is the test's
    /// to write and read, and to close.
    final class Fixture {
        let heard = Heard()
        let watcher = Watcher()
        let link: LocdLink
        let locd: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
            link = try LocdLink(connected: ends[0], on: watcher, waiting: heard.handler("hello"))
            locd = ends[1]
        }

        deinit { close(locd) }

        /// A call of about 1 KiB, numbered `n`, whose reply or failure `heard` records as `name`.
        func padded(_ n: Int, as name: String = "call") {
            let padding = String(repeating: "x", count: 1000)
            link.call(
                "io.locd.App.GetAuthorization",
                ["padding": .string(padding), "n": .int(Int64(n))],
                heard.handler(name)
            )
        }
    }

    /// Writes what the socket takes of `bytes` without waiting; how much.
    @discardableResult
    private static func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Int {
        let written = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return max(0, written)
    }

    /// Everything waiting at `descriptor`.
    private static func drain(_ descriptor: Int32) -> [UInt8] {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { return all }
            all.append(contentsOf: chunk[..<count])
        }
    }

    /// Serves the link as the bus thread does: `readable()` while its socket has something to read (the wait is
    /// level-triggered).
    private static func serve(_ link: LocdLink, _ watcher: Watcher) {
        while link.isOpen, let descriptor = watcher.watching.values.first {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 0) > 0 else { return }
            link.readable()
        }
    }

    private static func frames(_ replies: [String]) -> [UInt8] {
        replies.flatMap { Array($0.utf8) + [0] }
    }

    @Test("G1: replies reach their calls in order; a call with more keeps its handler until its last reply")
    func repliesInOrder() throws {
        let t = try Fixture()
        let (heard, link, locd) = (t.heard, t.link, t.locd)
        link.call("io.locd.App.LiveUpdates", ["session": .string("s1")], more: true, heard.handler("updates"))
        link.call("io.locd.App.GetAuthorization", [:], heard.handler("authorization"))
        link.send("io.locd.App.InvalidateSession", ["id": .string("s1")])
        // What locd read: the three calls in order, as Varlink frames, the last one oneway.
        let calls = Self.drain(locd).split(separator: 0, omittingEmptySubsequences: true).compactMap {
            JSONValue.parse($0)?.objectValue
        }
        #expect(
            calls.map { $0["method"]?.stringValue } == [
                "io.locd.App.LiveUpdates", "io.locd.App.GetAuthorization", "io.locd.App.InvalidateSession",
            ]
        )
        #expect(calls.map { $0["more"]?.boolValue ?? false } == [true, false, false])
        #expect(calls.map { $0["oneway"]?.boolValue ?? false } == [false, false, true])
        // Replies in one read: the Hello's, two of the stream and its last, then the authorization's.
        Self.write(
            locd,
            Self.frames([
                #"{"parameters":{"n":0}}"#,
                #"{"parameters":{"n":1},"continues":true}"#,
                #"{"parameters":{"n":2},"continues":true}"#,
                #"{"parameters":{"n":3}}"#,
                #"{"error":"io.locd.App.AppUnknown","parameters":{}}"#,
            ])
        )
        link.readable()
        #expect(
            heard.events == [
                "hello: 0", "updates: 1 more", "updates: 2 more", "updates: 3",
                "authorization: error io.locd.App.AppUnknown",
            ]
        )
        #expect(link.isOpen)
    }

    @Test("G16: locd closing the connection fails every call still waiting, with why; the watch ends")
    func closedByLocd() throws {
        let t = try Fixture()
        let (heard, watcher, link, locd) = (t.heard, t.watcher, t.link, t.locd)
        link.call("io.locd.App.LiveUpdates", more: true, heard.handler("updates"))
        Self.write(locd, Self.frames([#"{"parameters":{"n":0}}"#]))
        shutdown(locd, Int32(SHUT_RDWR))
        Self.serve(link, watcher)
        #expect(heard.events == ["hello: 0", "updates: failed: locd closed the connection"])
        #expect(!link.isOpen)
        #expect(watcher.watching.isEmpty)
        // A call on the closed link hears so at once.
        link.call("io.locd.App.GetAuthorization", [:], heard.handler("late"))
        #expect(heard.events.last == "late: failed: the connection to locd is closed")
    }

    @Test("G8: a reply that is not Varlink, or answers no call, fails the link")
    func badReplies() throws {
        for (bytes, heardThen) in [
            (Self.frames(["not json"]), ["hello: failed: locd sent a reply that is not Varlink"]),
            (Self.frames(["{}", "{}"]), ["hello: -"]),
        ] {
            let t = try Fixture()
            let (heard, watcher, link, locd) = (t.heard, t.watcher, t.link, t.locd)
            Self.write(locd, bytes)
            Self.serve(link, watcher)
            #expect(!link.isOpen)
            #expect(watcher.watching.isEmpty)
            #expect(heard.events == heardThen)
        }
    }

    @Test("G8: a reply over 16 MiB without its end fails the link instead of growing it")
    func oversizedReply() throws {
        let t = try Fixture()
        let (heard, link, locd) = (t.heard, t.link, t.locd)
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 65536)
        var sent = 0
        while link.isOpen && sent <= LocdLink.maximumReply + chunk.count {
            sent += Self.write(locd, chunk)
            link.readable()
        }
        #expect(!link.isOpen)
        #expect(sent > LocdLink.maximumReply)
        #expect(heard.events == ["hello: failed: locd sent a reply over \(LocdLink.maximumReply) bytes"])
    }

    @Test("G8: while locd does not read, calls wait for room up to 1 MiB; past it the link fails")
    func unreadCallsAreBounded() throws {
        let t = try Fixture()
        let (heard, watcher, link) = (t.heard, t.watcher, t.link)
        var calls = 0
        var askedForRoom = false
        while link.isOpen && calls < 10_000 {
            t.padded(calls)
            askedForRoom = askedForRoom || !watcher.wantsWritable.isEmpty
            calls += 1
        }
        #expect(!link.isOpen)
        #expect(askedForRoom)
        // About 1 MiB beyond what the socket holds, each call about 1 KiB: far from the 10,000 tried.
        #expect(calls > 1000 && calls < 5000, "\(calls)")
        let failures = heard.events.filter { $0.contains("failed: locd does not read") }
        #expect(failures.count == calls + 1, "every call and the Hello hear why")
    }

    @Test("G8: calls that waited for room go out in order once locd reads")
    func waitingCallsGoOut() throws {
        let t = try Fixture()
        let (watcher, link, locd) = (t.watcher, t.link, t.locd)
        var calls = 0
        while watcher.wantsWritable.isEmpty {
            t.padded(calls)
            calls += 1
        }
        var received: [UInt8] = []
        while !watcher.wantsWritable.isEmpty {
            received += Self.drain(locd)
            link.writable()
        }
        received += Self.drain(locd)
        let numbers = received.split(separator: 0).compactMap {
            JSONValue.parse($0)?["parameters"]?["n"]?.intValue
        }
        #expect(numbers == (0..<Int64(calls)).map { $0 })
        #expect(link.isOpen)
    }
}
