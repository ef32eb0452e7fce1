import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// R1–R3 under fire: decision traffic from several clients while `locd` is killed with SIGKILL at random
/// moments, again and again. After every restart, each decision whose reply arrived must be in force,
/// each session whose creation was acknowledged must be back (lingering, with a fresh relaunch window),
/// and the store must have opened cleanly (else `READY=1` never comes).
///
/// `LOCD_CRASH_ROUNDS` sets the number of kills (default 20; the documented long run uses 200), and
/// `LOCD_CRASH_SEED` replays a run: the seed is printed.
@Suite("Crash durability", .serialized)
struct CrashDurabilityTests {
    static let settingApps = (0..<4).map { "com.crash.setting\($0)" }
    static let promptApp = "com.crash.prompt"
    static let sessionApp = "com.crash.session"
    /// Administrators deciding at once, whose decisions share commits (group commit).
    static let groupApps = (0..<32).map { "com.crash.group\($0)" }

    static let manifests = DaemonProcess.manifests(
        settingApps + groupApps + [promptApp, sessionApp],
        whenInUse: "Crash test",
        always: "Crash test, always"
    )

    /// A relaunch window far longer than a round, so that no restored session expires before it is checked.
    static let settings = DaemonProcess.lifecycle(
        backgroundGrace: 10,
        relaunchWindow: 60,
        relaunchAdopt: 5,
        promptTimeout: 60
    )

    @Test("R1, R2, R3: kill -9 at random moments loses no acknowledged decision or session")
    func killAtRandom() throws {
        let environment = ProcessInfo.processInfo.environment
        let rounds = environment["LOCD_CRASH_ROUNDS"].flatMap(Int.init) ?? 20
        let seed = environment["LOCD_CRASH_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        let daemon = try DaemonProcess(manifests: Self.manifests, settings: Self.settings)
        let ledger = Ledger()
        var checkedDecisions = 0
        var checkedSessions = 0

        try daemon.start()
        for round in 0..<rounds {
            let socket = daemon.socketPath
            let group = DispatchGroup()
            let workers: [@Sendable () -> Void] =
                Self.settingApps.map { app in { Self.changeSettings(of: app, socket: socket, ledger: ledger) } }
                + [
                    { Self.flipServices(socket: socket, ledger: ledger) },
                    { Self.answerPrompts(socket: socket, ledger: ledger) },
                    { Self.churnSessions(socket: socket, ledger: ledger) },
                ]
            let before = ledger.acknowledgements
            // A thread each: blocking clients must not wait for a turn in Dispatch's small pool.
            for worker in workers {
                group.enter()
                Thread {
                    worker()
                    group.leave()
                }.start()
            }
            // Once the traffic is flowing, let it run for a random moment, then kill without warning.
            let flowing = Date().addingTimeInterval(10)
            while ledger.acknowledgements < before + workers.count && Date() < flowing {
                Thread.sleep(forTimeInterval: 0.001)
            }
            Thread.sleep(forTimeInterval: Double(random.next() % 60) / 1000)
            daemon.crash()
            #expect(group.wait(timeout: .now() + 30) == .success, "a client hung after the kill")

            do {
                try daemon.start()
            } catch {
                Issue.record("round \(round) (seed \(seed)): locd did not start after kill -9: \(error)")
                return
            }
            let verified = try verify(daemon, ledger: ledger, round: round, seed: seed)
            checkedDecisions += verified.decisions
            checkedSessions += verified.sessions
        }
        print(
            "crash durability: \(rounds) kills; \(ledger.acknowledgements) acknowledged calls; "
                + "\(checkedDecisions) last decisions and \(checkedSessions) live sessions checked (seed \(seed))"
        )
        #expect(checkedDecisions > rounds, "too little traffic reached locd to prove anything")
        #expect(daemon.stop() == 0)
    }

    @Test("R1: 32 administrators deciding at once share commits; kill -9 right after a reply loses no acknowledged one")
    func killAfterGroupCommit() throws {
        let daemon = try DaemonProcess(manifests: Self.manifests, settings: Self.settings)
        let ledger = Ledger()
        var checked = 0
        try daemon.start()
        for round in 0..<5 {
            let socket = daemon.socketPath
            let pid = daemon.pid
            let group = DispatchGroup()
            // The kill comes from a client's own thread, at once after the reply that makes the total reach `kill`:
            // the other 31 have decisions in flight, some in the commit that is being written.
            let kill = ledger.acknowledgements + Self.groupApps.count * 20
            for app in Self.groupApps {
                group.enter()
                Thread {
                    Self.changeSettings(of: app, socket: socket, ledger: ledger, killing: (pid, after: kill))
                    group.leave()
                }.start()
            }
            #expect(group.wait(timeout: .now() + 60) == .success, "a client hung after the kill")
            daemon.crash()
            try daemon.start()
            checked += try verify(daemon, ledger: ledger, round: round, seed: 0).decisions
        }
        #expect(checked >= 5 * Self.groupApps.count)
        #expect(daemon.stop() == 0)
    }

    /// Checks the restarted daemon against the ledger; returns how many facts it checked.
    private func verify(
        _ daemon: DaemonProcess,
        ledger: Ledger,
        round: Int,
        seed: UInt64
    ) throws -> (decisions: Int, sessions: Int) {
        let admin = try daemon.connect()
        let apps = try admin.call("io.locd.Admin.ListApps")["apps"]?.arrayValue ?? []
        // An app set for every user (H5) is read on its entry of no user; an app this test's processes used, on
        // this user's app (H1), which takes the place of the other.
        let uid = JSONValue.int(Int64(getuid()))
        var labels: [String: String] = [:]
        for app in apps {
            guard let id = app["appId"]?.stringValue, let label = app["authorization"]?["settingsLabel"]?.stringValue
            else { continue }
            if app["user"] == uid || (app["user"] == nil && labels[id] == nil) { labels[id] = label }
        }
        let status = try admin.call("io.locd.Admin.Status")["status"]
        let servicesOn = status?["locationServicesEnabled"]?.boolValue
        let snapshot = ledger.snapshot()
        var decisions = 0
        var settled: [String: String] = [:]
        for (subject, possible) in snapshot.decisions {
            let actual = subject == Ledger.services ? servicesOn.map { $0 ? "on" : "off" } : labels[subject]
            #expect(
                actual.map(possible.contains) == true,
                "round \(round) (seed \(seed)): \(subject) is \(actual ?? "missing"), acknowledged \(possible)"
            )
            settled[subject] = actual
            decisions += 1
        }
        ledger.settle(settled)

        // Every acknowledged, not yet invalidated session is back, lingering; the app takes them back.
        let app = try daemon.app(Self.sessionApp)
        let listed = try admin.call("io.locd.Admin.ListSessions", ["appId": .string(Self.sessionApp)])
        let sessions = listed["sessions"]?.arrayValue ?? []
        let restored = Set(sessions.compactMap { $0["id"]?.stringValue })
        for id in snapshot.liveSessions {
            #expect(restored.contains(id), "round \(round) (seed \(seed)): acknowledged session \(id) was lost")
        }
        for session in sessions {
            #expect(session["state"] == .string("lingering"))
            let remaining = session["remainingSeconds"]?.doubleValue ?? 0
            #expect(remaining > 0 && remaining <= 60, "R3: a fresh relaunch window, not \(remaining) s")
            guard let id = session["id"]?.stringValue else { continue }
            try app.call("io.locd.App.ResumeSession", ["id": .string(id)])
            try app.call("io.locd.App.InvalidateSession", ["id": .string(id)])
        }
        ledger.sessionsCleared()
        return (decisions, snapshot.liveSessions.count)
    }

    // MARK: Traffic, one client per subject so that "the last acknowledged" is well defined.

    /// - Parameter killing: a pid to kill with SIGKILL right after the reply that makes the ledger's acknowledgements
    ///   reach `after`.
    private static func changeSettings(
        of app: String,
        socket: String,
        ledger: Ledger,
        killing: (pid: Int32, after: Int)? = nil
    ) {
        guard let admin = try? VarlinkClient(path: socket, timeout: 10) else { return }
        let settings = ["never", "askNextTime", "whileUsing", "always"]
        var index = abs(app.hashValue) % settings.count
        while true {
            let setting = settings[index % settings.count]
            index += 1
            ledger.sending(app, setting)
            guard
                (try? admin.call(
                    "io.locd.Admin.SetAuthorization",
                    ["appId": .string(app), "setting": .string(setting)]
                )) != nil
            else { return }
            if let killing, ledger.acknowledged(app, setting) >= killing.after { kill(killing.pid, SIGKILL) }
        }
    }

    private static func flipServices(socket: String, ledger: Ledger) {
        guard let admin = try? VarlinkClient(path: socket, timeout: 10),
            let status = try? admin.call("io.locd.Admin.Status")["status"],
            var enabled = status["locationServicesEnabled"]?.boolValue
        else { return }
        while true {
            enabled.toggle()
            ledger.sending(Ledger.services, enabled ? "on" : "off")
            guard (try? admin.call("io.locd.Admin.SetLocationServices", ["enabled": .bool(enabled)])) != nil else {
                return
            }
            ledger.acknowledged(Ledger.services, enabled ? "on" : "off")
        }
    }

    /// Ask next time, then a session raises the prompt and an agent answers it: allow and deny in turn.
    private static func answerPrompts(socket: String, ledger: Ledger) {
        let app = promptApp
        guard let admin = try? VarlinkClient(path: socket, timeout: 10),
            let agent = try? VarlinkClient(path: socket, timeout: 10),
            let client = try? VarlinkClient(path: socket, timeout: 10),
            (try? agent.send(VarlinkCall(method: "io.locd.Admin.Prompts", parameters: [:], more: true))) != nil,
            (try? client.call("io.locd.App.Hello", ["appId": .string(app), "state": .string("foreground")])) != nil
        else { return }
        var allow = true
        while true {
            ledger.sending(app, "askNextTime")
            guard
                (try? admin.call(
                    "io.locd.Admin.SetAuthorization",
                    ["appId": .string(app), "setting": .string("askNextTime")]
                )) != nil
            else { return }
            ledger.acknowledged(app, "askNextTime")
            guard
                let session = try? client.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")]),
                let id = session.sessionID
            else { return }
            // The agent's stream: skip withdrawals and the prompt of an earlier round, if it is re-sent.
            var promptID: JSONValue?
            while promptID == nil {
                guard let reply = try? agent.next() else { return }
                if let prompt = reply["prompt"], prompt["appId"] == .string(app) { promptID = prompt["id"] }
            }
            let answer = allow ? "allowWhileUsing" : "deny"
            ledger.sending(app, allow ? "whileUsing" : "never")
            guard
                (try? admin.call("io.locd.Admin.AnswerPrompt", ["id": promptID!, "answer": .string(answer)])) != nil
            else { return }
            ledger.acknowledged(app, allow ? "whileUsing" : "never")
            allow.toggle()
            guard (try? client.call("io.locd.App.InvalidateSession", ["id": .string(id)])) != nil else { return }
        }
    }

    private static func churnSessions(socket: String, ledger: Ledger) {
        guard let admin = try? VarlinkClient(path: socket, timeout: 10),
            (try? admin.call(
                "io.locd.Admin.SetAuthorization",
                ["appId": .string(sessionApp), "setting": .string("whileUsing")]
            )) != nil,
            let client = try? VarlinkClient(path: socket, timeout: 10),
            (try? client.call("io.locd.App.Hello", ["appId": .string(sessionApp), "state": .string("foreground")]))
                != nil
        else { return }
        var created = 0
        while true {
            guard
                let session = try? client.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")]),
                let id = session.sessionID
            else { return }
            ledger.sessionCreated(id)
            created += 1
            // Keep a few alive across the kill; invalidate the rest.
            if created % 3 == 0 {
                ledger.invalidating(id)
                guard (try? client.call("io.locd.App.InvalidateSession", ["id": .string(id)])) != nil else { return }
                ledger.sessionInvalidated(id)
            }
            if created >= 30 { return }
        }
    }
}

/// What the clients were told: per subject the last acknowledged value and the one in flight (a call
/// cut off by the kill may or may not have taken effect), and the sessions acknowledged alive.
/// `@unchecked Sendable`: every field is guarded by `lock`.
final class Ledger: @unchecked Sendable {
    static let services = "location services"
    private let lock = NSLock()
    private var acknowledged: [String: String] = [:]
    private var inFlight: [String: String] = [:]
    private var sessions: Set<String> = []
    private var invalidating: Set<String> = []
    private var count = 0

    /// Acknowledged calls so far, of every kind.
    var acknowledgements: Int { lock.withLock { count } }

    func sending(_ subject: String, _ value: String) {
        lock.withLock { inFlight[subject] = value }
    }

    /// Records an acknowledged value; returns the acknowledgements so far, this one included.
    @discardableResult
    func acknowledged(_ subject: String, _ value: String) -> Int {
        lock.withLock {
            acknowledged[subject] = value
            inFlight[subject] = nil
            count += 1
            return count
        }
    }

    func sessionCreated(_ id: String) {
        lock.withLock {
            sessions.insert(id)
            count += 1
        }
    }
    func invalidating(_ id: String) { lock.withLock { _ = invalidating.insert(id) } }
    func sessionInvalidated(_ id: String) {
        lock.withLock {
            sessions.remove(id)
            invalidating.remove(id)
        }
    }
    func sessionsCleared() {
        lock.withLock {
            sessions.removeAll()
            invalidating.removeAll()
        }
    }

    /// Per acknowledged subject the values it may show now, and the sessions that must have survived.
    func snapshot() -> (decisions: [String: Set<String>], liveSessions: Set<String>) {
        lock.withLock {
            var decisions: [String: Set<String>] = [:]
            for (subject, value) in acknowledged {
                decisions[subject] = Set([value] + (inFlight[subject].map { [$0] } ?? []))
            }
            return (decisions, sessions.subtracting(invalidating))
        }
    }

    /// After a check: what locd shows is the acknowledged state the next round starts from.
    func settle(_ actual: [String: String]) {
        lock.withLock {
            acknowledged.merge(actual) { $1 }
            inFlight.removeAll()
        }
    }
}
