import Foundation
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS §12.2: hostile local users holding connections and descriptors, against the real daemon.
@Suite("Connection limits", .serialized)
struct ConnectionLimitTests {
    private static let refusedPerUID = "io.locd.App.LimitExceeded max-connections-per-uid"
    private static let refusedTotal = "io.locd.App.LimitExceeded max-connections"

    @Test(
        "F11: a uid holding more than max-connections-per-uid locks out neither root's locctl (F12 exempt) nor another uid",
        .enabled(if: getuid() == 0, "running clients as other users needs root")
    )
    func perUIDLimit() throws {
        let daemon = try DaemonProcess(settings: Self.limits("max-connections = 16\nmax-connections-per-uid = 8"))
        try daemon.start()
        let nobody = try ConnectionHolder(socket: daemon.socketPath, uid: 65534)
        let opened = try nobody.open(20)
        #expect(opened.filter { $0 == "ok" }.count == 8, "\(opened)")
        #expect(opened.filter { $0 == Self.refusedPerUID }.count == 12, "\(opened)")

        let status = try LocctlBinary.run(["status"], socket: daemon.socketPath)
        #expect(status.status == 0, "locctl status: \(status.errors)")
        let other = try ConnectionHolder(socket: daemon.socketPath, uid: 65533)
        #expect(try other.open(2) == ["ok", "ok"])
        let app = try daemon.app("com.ex.maps")
        #expect(try app.call("io.locd.App.ListSessions")["sessions"]?.arrayValue == [])

        #expect(daemon.stop() == 0)
        // Twelve refusals in a burst make one log line, not twelve.
        let lines = daemon.errorOutput.split(separator: "\n").filter {
            $0.contains("refusing a connection from uid 65534") && $0.contains("max-connections-per-uid")
        }
        #expect(lines.count == 1, "\(lines)")
    }

    @Test(
        "H9: a subordinate uid's connections count against its user's max-connections-per-uid, and the refusal names both uids",
        .enabled(if: getuid() == 0, "running clients as other users needs root")
    )
    func subordinateUIDs() throws {
        let directory = try TemporaryDirectory(prefix: "locd-subuid")
        defer { directory.remove() }
        let subuid = try directory.write("subuid", "65534:200000:65536\n")
        let settings = "max-connections-per-uid = 4\nsubordinate-uids = \"\(subuid)\""
        let daemon = try DaemonProcess(settings: Self.limits(settings))
        try daemon.start()
        let nobody = try ConnectionHolder(socket: daemon.socketPath, uid: 65534)
        #expect(try nobody.open(3) == ["ok", "ok", "ok"])
        // A process of nobody's range, as in a user namespace of nobody's own: one more of nobody's, then no more.
        let contained = try ConnectionHolder(socket: daemon.socketPath, uid: 200_001)
        #expect(try contained.open(3) == ["ok", Self.refusedPerUID, Self.refusedPerUID])
        let other = try ConnectionHolder(socket: daemon.socketPath, uid: 65533)
        #expect(try other.open(2) == ["ok", "ok"])

        #expect(daemon.stop() == 0)
        let lines = daemon.errorOutput.split(separator: "\n").filter {
            $0.contains("refusing a connection from uid 200001")
                && $0.contains("held by uid 65534 with its subordinate uids")
        }
        #expect(lines.count == 1, "\(daemon.errorOutput)")
    }

    @Test(
        "H9: a real account inside a user's range counts as itself: the range's user filling its bound does not lock it out, and the overlap is logged",
        .enabled(if: getuid() == 0, "making accounts and running clients as other users needs root")
    )
    func accountInsideARange() throws {
        let directory = try TemporaryDirectory(prefix: "locd-subuid")
        defer { directory.remove() }
        // As useradd gives a second user 165536-231071, over the uids sssd gives directory users from 200000.
        let subuid = try directory.write("subuid", "# rootless containers\n65534:200000:65536\n")
        let listed = try TestAccount(prefix: "locdh9a", uids: 200_100...265_000)
        defer { listed.remove() }
        let daemon = try DaemonProcess(
            settings: Self.limits("max-connections-per-uid = 4\nsubordinate-uids = \"\(subuid)\"")
        )
        try daemon.start()
        // An account made after locd read the file: found when its uid first connects.
        let later = try TestAccount(prefix: "locdh9b", uids: 200_100...265_000)
        defer { later.remove() }
        let nobody = try ConnectionHolder(socket: daemon.socketPath, uid: 65534)
        #expect(try nobody.open(4) == ["ok", "ok", "ok", "ok"])
        // nobody's own namespace uid is still nobody's.
        let contained = try ConnectionHolder(socket: daemon.socketPath, uid: 200_000)
        #expect(try contained.open(1) == [Self.refusedPerUID])
        var people: [ConnectionHolder] = []
        for account in [listed, later] {
            let person = try ConnectionHolder(socket: daemon.socketPath, uid: account.uid)
            people.append(person)
            #expect(try person.open(2) == ["ok", "ok"], "uid \(account.uid) counted as nobody's")
        }
        // A reload asks again and logs every account inside a range again; each still counts as itself.
        let reloaded = try LocctlBinary.run(["reload"], socket: daemon.socketPath)
        #expect(reloaded.status == 0, "\(reloaded.errors)")
        #expect(try people[1].open(2) == ["ok", "ok"], "uid \(later.uid) counted as nobody's after the reload")
        #expect(try contained.open(1) == [Self.refusedPerUID])

        #expect(daemon.stop() == 0)
        let log = daemon.errorOutput
        let line = "\(subuid):2: uid \(listed.uid) is the account \(listed.name), inside the range"
        #expect(log.components(separatedBy: line).count == 3, "logged at start and at the reload: \(log)")
        #expect(log.contains("\(subuid):2: uid \(later.uid) is an account, inside the range"), "\(log)")
        #expect(log.contains("\(subuid):2: uid \(later.uid) is the account \(later.name)"), "\(log)")
        #expect(log.contains("it counts as itself, not as uid 65534"), "\(log)")
    }

    @Test(
        "F10, F12: with max-connections held by unprivileged uids, root gets in through admin-reserve and no further",
        .enabled(if: getuid() == 0, "running clients as other users needs root")
    )
    func adminReserve() throws {
        let settings = Self.limits("max-connections = 8\nmax-connections-per-uid = 4\nadmin-reserve = 2")
        let daemon = try DaemonProcess(settings: settings)
        try daemon.start()
        let first = try ConnectionHolder(socket: daemon.socketPath, uid: 65534)
        let second = try ConnectionHolder(socket: daemon.socketPath, uid: 65533)
        #expect(try first.open(4) == Array(repeating: "ok", count: 4))
        #expect(try second.open(4) == Array(repeating: "ok", count: 4))
        let third = try ConnectionHolder(socket: daemon.socketPath, uid: 65532)
        #expect(try third.open(1) == [Self.refusedTotal])

        // Root: locctl, then two held connections of the reserve, then a clear refusal.
        let status = try LocctlBinary.run(["status"], socket: daemon.socketPath)
        #expect(status.status == 0, "locctl status: \(status.errors)")
        // locctl's close reaches locd on its own time: the first held connection may have to wait for it.
        var admin: VarlinkClient?
        #expect(
            try eventually(every: 0.05) {
                let client = try daemon.connect()
                guard (try? client.call("io.locd.Admin.Status"))?["status"] != nil else { return false }
                admin = client
                return true
            }
        )
        let spare = try daemon.connect()
        #expect(try spare.call("org.varlink.service.GetInfo")["vendor"] == .string("locd"))
        let beyond = try daemon.connect()
        let refusal = try beyond.receive()
        #expect(refusal.error == "io.locd.App.LimitExceeded")
        #expect(refusal.parameters["limit"] == .string("max-connections"))
        #expect(refusal.parameters["maximum"] == .int(10))
        #expect(refusal.parameters["message"]?.stringValue?.contains("raise [limits] max-connections") == true)
        #expect(beyond.isClosedByPeer(within: 5))

        // Room made by one uid is there for the others (root's two count among the ten open).
        try first.close(3)
        _ = admin
        #expect(try eventually(every: 0.05) { try third.open(1) == ["ok"] })
        #expect(daemon.stop() == 0)
    }

    @Test("F13: a connection that sends no call within idle-timeout is closed; a stream or an answered call is kept")
    func idleTimeout() throws {
        let daemon = try DaemonProcess(settings: Self.limits("idle-timeout = 0.5"))
        try daemon.start()
        let opened = Date()
        let silent = try daemon.connect()
        let halfCall = try daemon.connect()
        try halfCall.sendRaw(Array(#"{"method":"org.varlink.service.GetIn"#.utf8))
        let answered = try daemon.connect()
        #expect(try answered.call("org.varlink.service.GetInfo")["vendor"] == .string("locd"))
        let watcher = try daemon.connect()
        try watcher.send(VarlinkCall(method: "io.locd.Admin.Watch", parameters: [:], more: true))

        #expect(silent.isClosedByPeer(within: 10))
        #expect(Date().timeIntervalSince(opened) >= 0.45, "closed before idle-timeout")
        #expect(halfCall.isClosedByPeer(within: 10))

        // Past the timeout, the connection that spoke still answers and the stream still carries events.
        try answered.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(false)])
        let event = try watcher.next(until: { _ in true })
        #expect(event["event"] != nil, "\(event)")
        #expect(try answered.call("org.varlink.service.GetInfo")["vendor"] == .string("locd"))
        #expect(daemon.stop() == 0)
        #expect(daemon.errorOutput.contains("no call within idle-timeout (500 ms)"))
    }

    @Test(
        "F14: an open-file limit below max-connections lowers it at start; clients past it are refused, no spin",
        .enabled(if: getuid() == 0, "running clients as another user needs root")
    )
    func fittedToOpenFiles() throws {
        let settings = Self.limits("max-connections = 1000\nmax-connections-per-uid = 1000\nadmin-reserve = 4")
        let daemon = try DaemonProcess(settings: settings)
        // 100 descriptors, 64 kept for everything else: 32 connections and a reserve of 4.
        try daemon.start(launcher: ["/usr/bin/prlimit", "--nofile=100:100"])
        #expect(daemon.logSoFar.contains("lowered max-connections to 32 and admin-reserve to 4"))

        let nobody = try ConnectionHolder(socket: daemon.socketPath, uid: 65534)
        // More connections than there are descriptors: without the fitting, accept would fail past them.
        let opened = try nobody.open(80)
        #expect(opened.filter { $0 == "ok" }.count == 32, "\(opened)")
        #expect(opened.filter { $0 == Self.refusedTotal }.count == 48, "\(opened)")
        let cpu = try Self.cpuSeconds(of: daemon.pid, over: 2)
        #expect(cpu < 0.2, "locd used \(cpu) s of CPU in 2 s")

        let admin = try daemon.connect()
        #expect(try admin.call("io.locd.Admin.Status")["status"] != nil)
        try nobody.close(4)
        #expect(try eventually(every: 0.05) { try nobody.open(1) == ["ok"] })
        #expect(daemon.stop() == 0)
    }

    @Test(
        "F15: when accept fails for want of descriptors, locd pauses accepting with a log line, then serves again",
        .enabled(if: getuid() == 0, "lowering another process's open-file limit needs root")
    )
    func acceptBackoff() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let nobody = try ConnectionHolder(socket: daemon.socketPath, uid: 65534, replyTimeout: 0.5)
        #expect(try nobody.open(1) == ["ok"])
        // Descriptors run out behind locd's back: its soft limit drops to what it holds plus four.
        let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd").count
        try Self.run("/usr/bin/prlimit", "--pid=\(daemon.pid)", "--nofile=\(held + 4):")
        let opened = try nobody.open(10)
        #expect(opened.contains("timeout"), "\(opened)")
        let cpu = try Self.cpuSeconds(of: daemon.pid, over: 2)
        #expect(cpu < 0.2, "locd used \(cpu) s of CPU in 2 s")
        #expect(daemon.logSoFar.contains("accepting a connection failed"))
        #expect(daemon.logSoFar.contains("pausing accepts for 500 ms"))

        // Descriptors come back: accepting resumes by itself.
        try Self.run("/usr/bin/prlimit", "--pid=\(daemon.pid)", "--nofile=1024:")
        try nobody.close(20)
        #expect(try eventually(every: 0.05) { try nobody.open(1) == ["ok"] })
        #expect(daemon.stop() == 0)
    }

    // MARK: Helpers

    /// The standard test settings with a `[limits]` table.
    private static func limits(_ lines: String) -> String {
        DaemonProcess.fastLifecycle + "\n[limits]\n" + lines
    }

    /// The CPU time (user + system) `pid` uses over `seconds` of wall time.
    ///
    /// A liveness check, not a benchmark: an idle locd holding connections has nothing to do and uses well
    /// under a hundredth of a second per second; an accept loop spinning on `EMFILE` uses all the CPU it is
    /// given, which is at least a quarter of a core even on a 2-core machine shared by eight busy processes.
    /// The bound, a tenth of the window, is far from both.
    private static func cpuSeconds(of pid: Int32, over seconds: Double) throws -> Double {
        let before = try cpuTicks(of: pid)
        // A measurement window, not a wait for an event: the CPU is counted over it.
        Thread.sleep(forTimeInterval: seconds)
        let after = try cpuTicks(of: pid)
        return Double(after - before) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// utime + stime of `/proc/PID/stat`, in clock ticks.
    private static func cpuTicks(of pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name, which is in parentheses and may hold spaces: state is field 3.
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    private static func run(_ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        try process.run()
        let ended = process.waitForExit()
        #expect(ended.status == 0, "\(arguments) exited \(ended.status)")
    }
}
