import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS §12.1: hostile local clients that send huge calls, open streams nobody reads, pipeline without
/// reading, or ask for replies larger than the write buffer; none of them may stall or starve another.
///
/// The bounded waits below (a reply within 2 s) are liveness checks, not performance assertions: before
/// these rules the same steps held the event loop for 20 to 36 s.
@Suite("Hostile load", .serialized)
struct HostileLoadTests {
    static let condition: JSONValue = .object([
        "latitude": .double(35.681236), "longitude": .double(139.767125), "radius": .double(100),
    ])

    /// A fresh connection answers `GetInfo` within `seconds`.
    private func answersPromptly(_ daemon: DaemonProcess, within seconds: Double = 2) throws -> Bool {
        let client = try VarlinkClient(path: daemon.socketPath, timeout: seconds)
        return try client.call("org.varlink.service.GetInfo")["vendor"] == .string("locd")
    }

    /// Connections bound to an app by `Hello`.
    private func clients(_ admin: VarlinkClient) throws -> Int {
        Int(try admin.call("io.locd.Admin.Status")["status"]?["clients"]?.intValue ?? -1)
    }

    /// `Admin.Status`'s count of the calls locd has run.
    private func calls(_ admin: VarlinkClient) throws -> Int {
        Int(try admin.call("io.locd.Admin.Status")["status"]?["calls"]?.intValue ?? -1)
    }

    /// Bytes waiting unread in `clients`' sockets.
    private func unreadBytes(_ clients: [VarlinkClient]) -> Int {
        clients.reduce(0) { total, client in
            var count: Int32 = 0
            return ioctl(client.fileDescriptor, UInt(FIONREAD), &count) == 0 ? total + Int(count) : total
        }
    }

    private func residentKiB(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test("F1: a 1 MiB call of 110,000 parameters is refused at once, naming the limit; nobody waits for it")
    func wideCall() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let flooder = try daemon.connect()
        flooder.timeout = 2
        var frame = Array(#"{"method":"io.locd.App.Hello","parameters":"#.utf8)
        frame += JSONSamples.wideObject(keys: 110_000)
        frame += Array("}".utf8) + [0]
        #expect(frame.count < 1 << 20, "the frame fits max-message-bytes")
        try flooder.sendRaw(frame)
        // The flooder's own answer bounds how long its call held the loop (20 s before F1).
        let reply = try flooder.receive()
        #expect(reply.error == "org.varlink.service.InvalidParameter")
        let message = reply.parameters["message"]?.stringValue ?? ""
        #expect(message.contains("256"), "\(message)")
        #expect(try answersPromptly(daemon))
        // The connection stays usable.
        #expect(try flooder.call("org.varlink.service.GetInfo")["vendor"] == .string("locd"))
        #expect(daemon.stop() == 0)
    }

    @Test(
        "F3: more with oneway is refused naming oneway, 20,000 times (F2 one stream a connection); closing stalls nobody"
    )
    func onewayStreams() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let flooder = try daemon.app("com.ex.maps")
        flooder.timeout = 2
        let id = try #require(
            try flooder.call("io.locd.App.CreateSession", ["authorization": .string("none")]).sessionID
        )
        let methods: [(String, JSONObject)] = [
            ("io.locd.App.SessionDiagnostics", ["id": .string(id)]), ("io.locd.App.WatchAuthorization", [:]),
        ]
        for (method, parameters) in methods {
            let frame = Array(
                VarlinkCall(method: method, parameters: parameters, more: true, oneway: true).serialized.utf8
            )
            let batch = 500
            for _ in 0..<10_000 / batch {
                try flooder.sendRaw(Array([[UInt8]](repeating: frame + [0], count: batch).joined()))
                for _ in 0..<batch {
                    let refused = try flooder.receive()
                    #expect(refused.error == "org.varlink.service.InvalidParameter")
                    #expect(refused.parameters["parameter"] == .string("oneway"))
                }
            }
        }
        // F2: the connection's one stream, then a call queued behind it, answered after the stream's end.
        let diagnostics = try flooder.stream("io.locd.App.SessionDiagnostics", ["id": .string(id)])
        #expect(diagnostics["ended"] == .bool(false))
        try flooder.send(VarlinkCall(method: "io.locd.App.GetAuthorization"))
        let other = try daemon.app("com.ex.maps")
        try other.call("io.locd.App.InvalidateSession", ["id": .string(id)])
        let end = try flooder.next(until: { $0["ended"] == .bool(true) })
        #expect(end["ended"] == .bool(true))
        #expect(try flooder.next()["authorization"] != nil, "the queued call runs once the stream has ended")
        // Closing the flooder frees nothing it should not have held, at once.
        _ = consume flooder
        #expect(try answersPromptly(daemon))
        #expect(try other.call("io.locd.App.ListSessions")["sessions"]?.arrayValue == [])
        #expect(daemon.stop() == 0)
    }

    @Test("F4: calls pipelined behind an open stream stop being read at max-pipelined-calls; memory stays flat")
    func pipelineBehindStream() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let flooder = try daemon.app("com.ex.maps")
        _ = try flooder.stream("io.locd.App.WatchAuthorization")
        let before = try residentKiB(of: daemon.pid)
        // Calls that wait behind the stream for ever: sent without blocking until 64 MiB are sent, or until
        // the socket has taken nothing for a second, which only happens once locd stops reading.
        let call = Array(VarlinkCall(method: "org.varlink.service.GetInfo").serialized.utf8) + [0]
        let chunk = Array([[UInt8]](repeating: call, count: 65_536 / call.count).joined())
        let target = 64 << 20
        var sent = 0
        while sent < target {
            var poller = pollfd(fd: flooder.fileDescriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&poller, 1, 1000) > 0 else { break }
            let written = chunk.withUnsafeBytes {
                send(flooder.fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if written > 0 { sent += written }
        }
        let grown = try residentKiB(of: daemon.pid) - before
        // What locd read: 64 calls or max-message-bytes of them, plus one read past the limit; the rest sits in
        // the sockets' buffers, a few hundred KiB. 200 MB of them cost 1.1 GiB before F4.
        #expect(sent < 8 << 20, "locd kept reading a connection whose pipeline was full: \(sent) bytes taken")
        #expect(grown < 16 << 10, "locd grew by \(grown) KiB holding one connection's pipelined calls")
        #expect(try answersPromptly(daemon))
        // A connection no longer read is still seen to close: its client and stream go.
        let admin = try daemon.connect()
        #expect(try clients(admin) == 1)
        _ = consume flooder
        #expect(
            try eventually(timeout: 10) { try clients(admin) == 0 },
            "locd did not see the end of a connection it had stopped reading"
        )
        #expect(daemon.stop() == 0)
    }

    @Test("F4: org.varlink.service calls pipelined before any other call stop being read at max-pipelined-calls too")
    func pipelineBeforeIdentifyingCall() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let flooder = try daemon.connect()
        let before = try residentKiB(of: daemon.pid)
        // The connection's first calls are read by locd itself, 16 at most (I4); whatever follows is read by NIO.
        // Replies nobody reads soon stop the calls running (F5), and then the pipeline must stop the reading.
        let call = Array(
            VarlinkCall(
                method: "org.varlink.service.GetInterfaceDescription",
                parameters: ["interface": .string("org.varlink.service")]
            ).serialized.utf8
        )
        let chunk = Array([[UInt8]](repeating: call + [0], count: 16_384 / (call.count + 1)).joined())
        let target = 64 << 20
        var sent = 0
        while sent < target {
            var poller = pollfd(fd: flooder.fileDescriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&poller, 1, 1000) > 0 else { break }
            let written = chunk.withUnsafeBytes {
                send(flooder.fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if written > 0 { sent += written }
        }
        let grown = try residentKiB(of: daemon.pid) - before
        // Before, the end of identification turned reading on whatever the pipeline held: locd read all 64 MiB
        // and held every call, gigabytes for a few hundred such connections.
        #expect(sent < 8 << 20, "locd kept reading a connection whose pipeline was full: \(sent) bytes taken")
        #expect(grown < 16 << 10, "locd grew by \(grown) KiB holding one connection's pipelined calls")
        #expect(try answersPromptly(daemon))
        #expect(daemon.stop() == 0)
    }

    @Test(
        "F4, F5: 300 connections that pipeline and never read hold locd's memory to their bounds (F17: nobody waits)"
    )
    func manyPipelinersNeverReading() throws {
        // 300 apps (max-clients-per-app bounds one app's connections), all of one uid, which may own them here (F20).
        let settings = DaemonProcess.fastLifecycle.replacingOccurrences(
            of: "allow-unknown-apps = false",
            with: "allow-unknown-apps = true"
        )
        let daemon = try DaemonProcess(
            settings: settings + "\n[limits]\nmax-connections-per-uid = 400\nmax-apps-per-uid = 400"
        )
        try daemon.start()
        let flooders = try (0..<300).map { try daemon.app("com.ex.flood\($0)") }
        let before = try residentKiB(of: daemon.pid)
        // Every connection sends calls whose replies it never reads, without blocking, until no socket has
        // taken a byte for a second (locd has stopped reading all of them) or each has sent 4 MiB.
        let call = Array(VarlinkCall(method: "io.locd.App.GetAuthorization").serialized.utf8) + [0]
        let chunk = Array([[UInt8]](repeating: call, count: 16_384 / call.count).joined())
        var sent = [Int](repeating: 0, count: flooders.count)
        var pollers = flooders.map { pollfd(fd: $0.fileDescriptor, events: Int16(POLLOUT), revents: 0) }
        while poll(&pollers, nfds_t(pollers.count), 1000) > 0 {
            for index in pollers.indices where pollers[index].revents & Int16(POLLOUT) != 0 {
                let written = chunk.withUnsafeBytes {
                    send(pollers[index].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                }
                if written > 0 { sent[index] += written }
                if sent[index] >= 4 << 20 { pollers[index].events = 0 }
            }
        }
        let grown = try residentKiB(of: daemon.pid) - before
        // Per connection locd keeps at most 64 calls read ahead (F4) and 64 KiB of replies unread before it runs
        // no more of its calls (F5): about 100 KiB; 300 such connections cost over 1.1 GiB before F4 and F5.
        #expect(sent.allSatisfy { $0 < 4 << 20 }, "locd kept reading a connection that never reads its replies")
        #expect(grown < 96 << 10, "locd grew by \(grown) KiB for 300 connections that never read")
        // F17: a newcomer is answered after a round or two of the loop, each running at most 16 calls of every
        // flooder (about 4,800 replies; they are root's, administrators, each held to its own turn, F19), not after
        // every call the flooders sent (32,000-36,000 before F17). Counted in their replies, not in seconds, so that
        // a busy machine does not change the verdict: they pile up unread in the flooders' sockets.
        let unreadBefore = unreadBytes(flooders)
        let newcomer = try VarlinkClient(path: daemon.socketPath, timeout: 60)
        #expect(try newcomer.call("org.varlink.service.GetInfo")["vendor"] == .string("locd"))
        let repliedMeanwhile = unreadBytes(flooders) - unreadBefore
        let reply = 200  // a GetAuthorization reply and its NUL: 183 bytes
        #expect(
            repliedMeanwhile < 300 * 16 * 4 * reply,
            "the flooders got \(repliedMeanwhile / reply) replies while a newcomer waited for its first"
        )
        let admin = try daemon.connect()
        #expect(try clients(admin) == 300)
        _ = consume flooders
        #expect(
            try eventually(timeout: 10) { try clients(admin) == 0 },
            "locd did not see the end of connections it had stopped reading"
        )
        #expect(daemon.stop() == 0)
    }

    /// F19: counted in the calls locd ran, never in seconds, so that a busy machine does not change the verdict;
    /// `locd-bench --only fairness` prints the time it takes.
    @Test(
        "F19: root's Admin.Status waits for a share or two of one user's calls, whatever it pipelines on 250 connections",
        .enabled(if: getuid() == 0, "running the flood as another user needs root")
    )
    func administratorUnderFlood() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        // Patient clients, so that a wait is counted rather than cut off.
        let admin = try VarlinkClient(path: daemon.socketPath, timeout: 120)
        // nobody's 250 connections (its max-connections-per-uid is 256) each pipeline GetInterfaceDescription, about
        // 1 KiB of reply each, and read nothing: locd has tens of thousands of calls to run before every one lags.
        let call = VarlinkCall(
            method: "org.varlink.service.GetInterfaceDescription",
            parameters: ["interface": .string("org.varlink.service")]
        ).serialized
        let flood = try UnreadFlood(socket: daemon.socketPath, uid: 65534, connections: 250, call: call)
        try flood.waitFor("flooding")
        // Each figure: the calls locd ran between root's previous reply and its next one, on root's open connection
        // and on a fresh one, as locctl status makes. Root's own call is one of them.
        var waits: [Int] = []
        var last = try calls(admin)
        for _ in 0..<10 {
            let next = try calls(admin)
            waits.append(next - last - 1)
            let fresh = try VarlinkClient(path: daemon.socketPath, timeout: 120)
            let answered = try calls(fresh)
            waits.append(answered - next - 1)
            last = answered
        }
        let sent = Int(try flood.waitFor("blocked")) ?? 0
        #expect(sent > 100_000, "the flood sent only \(sent) calls")
        // The flood was being served while root asked: its calls ran between root's.
        #expect(waits.reduce(0, +) >= 8 * waits.count, "the flood's calls did not run meanwhile: \(waits)")
        // With turns by connection (F17 alone) a look ran 16 calls of each of the 250 connections, and a fresh
        // connection waited for almost all of them (59,424 calls here, seconds; then hundreds each, as the flood
        // drained). By user, root's call runs at the next look at its socket: after one share (16) of nobody's, or
        // two, and what the client's own turnaround lets run (16 to 80 here). The largest allowed, 16 shares, is
        // room for a test process that a loaded machine leaves waiting.
        let median = waits.sorted()[waits.count / 2]
        #expect(median <= 4 * 16, "root's Status waited behind \(waits) calls")
        #expect(waits.max() ?? 0 <= 16 * 16, "root's Status waited behind \(waits) calls")
        #expect(daemon.stop() == 0)
    }

    @Test("F5: a stalled Admin.Watch reader is closed at max-write-buffer, every byte it holds counted")
    func stalledWatcher() throws {
        let limit = 1 << 20
        let daemon = try DaemonProcess(
            settings: DaemonProcess.fastLifecycle + "\n[limits]\nmax-write-buffer = \(limit)\n"
        )
        try daemon.start()
        let admin = try daemon.connect()
        let watcher = try daemon.connect()
        try watcher.send(VarlinkCall(method: "io.locd.Admin.Watch", more: true))
        let before = try residentKiB(of: daemon.pid)
        var peak = before
        // Each flip is one turn with one small event (about 130 bytes) that nobody reads: handed to the channel
        // one by one, each cost its own buffer and the channel's bookkeeping, uncounted.
        let flips = 10_000
        for flip in 0..<flips {
            try admin.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(flip % 2 == 1)])
            if flip % 100 == 0 { peak = max(peak, try residentKiB(of: daemon.pid)) }
        }
        var delivered = 0
        #expect(throws: VarlinkClient.ClientError.closed) {
            while true {
                _ = try watcher.receive()
                delivered += 1
            }
        }
        #expect(delivered < flips, "all \(delivered) events reached a reader that never read")
        // Counted, the unwritten frames are at most max-write-buffer, gathered in one buffer, beside the
        // channel's lag threshold; the daemon grew by 3.4 times max-write-buffer here before F5 (1.4 after).
        let grown = peak - before
        #expect(grown < 2 * limit / 1024, "locd grew by \(grown) KiB for a reader closed at \(limit) bytes")
        #expect(try answersPromptly(daemon))
        #expect(daemon.stop() == 0)
    }

    @Test("F7: AddCondition past max-conditions-per-app fails; MonitorEvents of all of them arrives whole")
    func conditionsPerApp() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.authorize("com.ex.maps", "always")
        let app = try daemon.app("com.ex.maps")
        let count = 1000
        // Pipelined in batches, so that a turn answers many.
        for start in stride(from: 0, to: count, by: 50) {
            for index in start..<start + 50 {
                try app.send(
                    VarlinkCall(
                        method: "io.locd.App.AddCondition",
                        parameters: [
                            "monitor": .string("places"), "identifier": .string("c\(index)"),
                            "condition": Self.condition,
                        ]
                    )
                )
            }
            for _ in 0..<50 { #expect(try app.receive().error == nil) }
        }
        let refused = try app.receive(
            after: VarlinkCall(
                method: "io.locd.App.AddCondition",
                parameters: ["monitor": .string("other"), "identifier": .string("one"), "condition": Self.condition]
            )
        )
        #expect(refused.error == "io.locd.App.LimitExceeded")
        #expect(refused.parameters["limit"] == .string("max-conditions-per-app"))
        #expect(refused.parameters["message"]?.stringValue?.contains("remove some first") == true)
        // Replacing one the app has is not a new one.
        try app.call(
            "io.locd.App.AddCondition",
            ["monitor": .string("places"), "identifier": .string("c7"), "condition": Self.condition]
        )
        let streamer = try daemon.app("com.ex.maps")
        _ = try streamer.stream("io.locd.App.MonitorEvents", ["monitor": .string("places")])
        var identifiers: Set<String> = []
        while identifiers.count < count {
            identifiers.insert(try streamer.next()["event"]?["identifier"]?.stringValue ?? "")
        }
        #expect(identifiers.count == count)
        #expect(daemon.stop() == 0)
    }

    @Test("F8: a ListApps reply larger than max-write-buffer arrives whole to a peer that has caught up")
    func largeFinalReply() throws {
        var manifests = DaemonProcess.standardManifests
        for index in 0..<60 {
            manifests["com.ex.app\(index)"] = """
                id = "com.ex.app\(index)"
                identity = "any"
                NSLocationWhenInUseUsageDescription = "Shows you on the map"
                """
        }
        let limit = 4096
        let daemon = try DaemonProcess(
            manifests: manifests,
            settings: DaemonProcess.fastLifecycle + "\n[limits]\nmax-write-buffer = \(limit)\n"
        )
        try daemon.start()
        let admin = try daemon.connect()
        let apps = try #require(try admin.call("io.locd.Admin.ListApps")["apps"]?.arrayValue)
        #expect(apps.count == 63)
        #expect(JSONValue.array(apps).serialized.utf8.count > limit, "the reply is larger than max-write-buffer")
        #expect(try admin.call("io.locd.Admin.ListApps")["apps"]?.arrayValue == apps, "and the connection stays")
        #expect(daemon.stop() == 0)
    }
}

extension VarlinkClient {
    /// Sends `call` and reads its reply, an error one included.
    fileprivate func receive(after call: VarlinkCall) throws -> VarlinkReply {
        try send(call)
        return try receive()
    }
}
