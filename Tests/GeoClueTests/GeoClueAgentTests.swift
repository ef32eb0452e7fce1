import Foundation
import JSON
import LocationTestSupport
import Testing

/// GeoClue agents (GNOME Shell, GeoClue's demo agent, the project's own Fixtures/geoclue_agent.py) answering locd's
/// prompts through `AuthorizeApp`, their `MaxAccuracyLevel`, and agents that leave or never answer.
@Suite("GeoClue2: agents answer locd's prompts", .serialized)
struct GeoClueAgentTests {
    static let demoAgent = "/usr/libexec/geoclue-2.0/demos/agent"

    /// The project's agent (Fixtures/geoclue_agent.py) in `mode` with `MaxAccuracyLevel` `maximum`, registered (or
    /// once its output shows `awaited`: `"refused"` for an `AddAgent` refused); run as `uid` without privileges when
    /// one is given.
    static func agent(
        _ harness: GeoClueHarness,
        _ mode: String,
        maximum: Int = 8,
        asUID uid: UInt32? = nil,
        awaiting awaited: String = "\"registered\""
    ) throws -> ScriptProcess {
        let agent = try ScriptProcess(
            (uid.map(harness.unprivileged) ?? [])
                + ["/usr/bin/python3", GeoClueHarness.fixture("geoclue_agent.py"), mode, String(maximum)],
            environment: harness.busEnvironment,
            logPath: harness.directory + "/agent-\(UUID().uuidString.prefix(6)).log"
        )
        guard agent.waitFor(awaited) else { throw HarnessFailure("the agent never printed \(awaited): \(agent.log)") }
        return agent
    }

    /// A field of locd's `locctl status --json`; `nil` while locd does not answer (it is restarting).
    static func status(_ harness: GeoClueHarness, _ field: String) throws -> Int? {
        let status = try harness.locctl(["status", "--json"])
        let parsed = (try? JSONSerialization.jsonObject(with: Data(status.output.utf8))) as? [String: Any]
        return ((parsed?["status"] as? [String: Any]) ?? parsed)?[field] as? Int
    }

    /// locd's count of prompt agents.
    static func locdAgents(_ harness: GeoClueHarness) throws -> Int? {
        try status(harness, "agents")
    }

    /// The authorization record in locd of `user`'s app (by default the test's own user's), from
    /// `locctl apps --json`.
    static func authorization(
        _ harness: GeoClueHarness,
        _ app: String,
        of user: UInt32 = getuid()
    ) throws -> [String: Any] {
        try harness.app(app, of: user)?["authorization"] as? [String: Any] ?? [:]
    }

    @Test("G34: with GeoClue's [agent] whitelist, an agent it does not list is refused as GeoClue refuses it")
    func agentWhitelist() throws {
        // G34: listed-agent's program is this test's interpreter, as /proc/PID/exe shows it.
        let harness = try GeoClueHarness(
            geoClueConfiguration: "[agent]\nwhitelist=gnome-shell;listed-agent\n",
            agentExecutables: ["listed-agent": GeoClueHarness.realPath("/usr/bin/python3")]
        )
        func start(_ id: String) throws -> ScriptProcess {
            try ScriptProcess(
                ["/usr/bin/python3", GeoClueHarness.fixture("geoclue_agent.py"), "allow:8", "8"],
                environment: harness.busEnvironment.merging(["GEOCLUE_AGENT_ID": id]) { $1 },
                logPath: harness.directory + "/agent-\(id).log"
            )
        }
        let unlisted = try start("test-agent")
        defer { unlisted.closeInput() }
        #expect(unlisted.waitFor("\"refused\""), "\(unlisted.log)")
        #expect(unlisted.log.contains("test-agent not allowed to act as agent"), "\(unlisted.log)")
        let listed = try start("listed-agent")
        defer { listed.closeInput() }
        #expect(listed.waitFor("\"registered\""), "\(listed.log)")
    }

    @Test(
        "G11: an ordinary user's agent, without privileges, answers the prompt of that user's client",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    )
    func unprivilegedAgentAnswers() throws {
        let harness = try GeoClueHarness()
        let agent = try Self.agent(harness, "allow:8", asUID: GeoClueHarness.ordinaryUID)
        defer { agent.closeInput() }
        let result = try harness.python(["where-am-i", "test.allowed", "8"], asUID: GeoClueHarness.ordinaryUID)
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        #expect(agent.log.contains("{\"asked\": [\"test.allowed\", 8]}"), "\(agent.log)")
        let record = try Self.authorization(harness, "test.allowed", of: GeoClueHarness.ordinaryUID)
        #expect(record["status"] as? String == "authorizedWhenInUse", "\(record)")
    }

    @Test(
        "H7: two users' clients of one app: each user's agent is asked only that user's prompt, and one's deny does not decide for the other",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    )
    func eachUsersAgentDecidesForThatUserAlone() throws {
        let (first, second) = (GeoClueHarness.ordinaryUID, GeoClueHarness.otherUID)
        let harness = try GeoClueHarness()
        let bridge = try #require(harness.bridge)
        let allowing = try Self.agent(harness, "allow:8", asUID: second)
        defer { allowing.closeInput() }
        // The first user's client starts the app while that user has no GeoClue agent: its prompt reaches
        // locd-geoclue, which holds it for the first user's agent alone.
        let denied = try harness.pythonRunning(["pending", "test.allowed"], asUID: first)
        defer { denied.closeInput() }
        #expect(denied.waitFor { $0["sent"] != nil } != nil, "\(denied.log)")
        // locd-geoclue's stream names the second user alone (P14): the first user's prompt waits in locd, unsent.
        #expect(try eventually(timeout: 20) { try Self.status(harness, "pendingPrompts") == 1 }, "\(bridge.log)")
        #expect(!bridge.log.contains("kept for the GeoClue agent of uid \(first)"), "\(bridge.log)")
        // The second user starts a client of the same app meanwhile: its agent is asked its own user's prompt only,
        // never the first user's that waits beside it, and its allow gives the second user a location.
        let result = try harness.python(["where-am-i", "test.allowed", "8"], asUID: second)
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)\n\(bridge.log)")
        #expect(try Self.authorization(harness, "test.allowed", of: first)["status"] as? String == "notDetermined")
        // The first user's agent comes: locd-geoclue's stream of both users replaces the other, which brings the
        // first user's prompt; that user's agent is asked it, and denies it.
        let denying = try Self.agent(harness, "refuse", asUID: first)
        defer { denying.closeInput() }
        let refusal = try #require(denied.waitFor { $0["app"] != nil }, "\(denied.log)\n\(bridge.log)")
        #expect(refusal["error"]?.stringValue == "org.freedesktop.DBus.Error.AccessDenied", "\(refusal)")
        // Each agent was asked once: its own user's prompt.
        let asked = "{\"asked\": [\"test.allowed\", 8]}"
        #expect(allowing.log.components(separatedBy: "\"asked\"").count == 2, "\(allowing.log)")
        #expect(allowing.log.contains(asked), "\(allowing.log)")
        #expect(denying.log.components(separatedBy: "\"asked\"").count == 2, "\(denying.log)")
        // Each answer decided its own user's app alone.
        let firstRecord = try Self.authorization(harness, "test.allowed", of: first)
        #expect(firstRecord["status"] as? String == "denied", "\(firstRecord)")
        let secondRecord = try Self.authorization(harness, "test.allowed", of: second)
        #expect(secondRecord["status"] as? String == "authorizedWhenInUse", "\(secondRecord)")
        // And the second user's app still locates after the first user's deny.
        let again = try harness.python(["where-am-i", "test.allowed", "8"], asUID: second)
        #expect(again.objects.first?["Latitude"] as? Double == GeoClueHarness.latitude, "\(again.output)")
        #expect(allowing.log.components(separatedBy: "\"asked\"").count == 2, "\(allowing.log)")
    }

    @Test(
        "P14, G11, H7: one user's GeoClue agent holds no other user's prompt: that one is dismissed after agent-wait",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    )
    func oneUsersAgentHoldsNoOtherUsersPrompt() throws {
        let (owner, other) = (GeoClueHarness.otherUID, GeoClueHarness.ordinaryUID)
        let harness = try GeoClueHarness(promptTimeout: 60, agentWait: 1)
        let bridge = try #require(harness.bridge)
        let agent = try Self.agent(harness, "allow:8", asUID: owner)
        defer { agent.closeInput() }
        // locd-geoclue holds its Prompts stream for the agent's user: locd counts one agent.
        #expect(try eventually(timeout: 20) { try Self.locdAgents(harness) == 1 }, "\(bridge.log)")
        // Another user, with no agent of their own, starts a client whose app needs a prompt: nobody can answer it,
        // so it goes after agent-wait (1 s) with P14's advice, not after prompt-timeout (60 s) nor locd-geoclue's
        // 20 s wait for a decision (G17).
        let started = Date()
        let result = try harness.python(["start", "test.unanswered"], asUID: other, timeout: 50)
        let elapsed = Date().timeIntervalSince(started)
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)\(bridge.log)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String)?.contains("locd-agent") == true, "\(reply)")
        #expect(elapsed < 15, "the Start waited \(elapsed) s")
        #expect(try Self.authorization(harness, "test.unanswered", of: other)["status"] as? String == "notDetermined")
        #expect(!agent.log.contains("\"asked\""), "another user's agent is never asked: \(agent.log)")
        // The agent's own user's prompts are still asked of it, and its answer locates.
        let own = try harness.python(["where-am-i", "test.allowed", "8"], asUID: owner)
        let location = try #require(own.objects.first, "\(own.output)\(own.errors)\(bridge.log)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        #expect(agent.log.contains("{\"asked\": [\"test.allowed\", 8]}"), "\(agent.log)")
    }

    @Test(
        "P14, G11: when a user's last GeoClue agent leaves mid-prompt while another user's stays, that prompt goes after agent-wait",
        .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    )
    func leavingAgentsUserIsNoLongerCounted() throws {
        let (staying, leaving) = (GeoClueHarness.otherUID, GeoClueHarness.ordinaryUID)
        let harness = try GeoClueHarness(promptTimeout: 60, agentWait: 1)
        let bridge = try #require(harness.bridge)
        let stays = try Self.agent(harness, "allow:8", asUID: staying)
        defer { stays.closeInput() }
        let leaves = try Self.agent(harness, "leave", asUID: leaving)
        #expect(bridge.waitFor("GeoClue agents of uids [\(staying), \(leaving)]"), "\(bridge.log)")
        // The leaving user's agent is asked its user's prompt and leaves the bus: locd-geoclue's stream is replaced
        // by one of the staying user's alone, so nobody is left to ask that prompt, and it goes after agent-wait.
        let result = try harness.python(["start", "test.unanswered"], asUID: leaving, timeout: 50)
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)\(bridge.log)")
        #expect(leaves.log.contains("\"asked\""), "\(leaves.log)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String)?.contains("locd-agent") == true, "\(reply)")
        #expect(result.elapsed < 15, "the Start waited \(result.elapsed) s")
        #expect(!stays.log.contains("\"asked\""), "\(stays.log)")
        #expect(try Self.locdAgents(harness) == 1, "the staying user's stream is still counted")
    }

    /// GeoClue's demo agent, with a session bus that is not there: it could not show its notification, and would
    /// answer not authorized if it were asked.
    static func startDemoAgent(_ harness: GeoClueHarness) throws -> ScriptProcess {
        try ScriptProcess(
            [demoAgent],
            environment: harness.busEnvironment.merging(["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]) {
                $1
            },
            logPath: harness.directory + "/demo-agent.log"
        )
    }

    @Test(
        "G11, P14: GeoClue's demo agent is never asked: alone it leaves the prompt to be dismissed, and denies nothing",
        .enabled(if: FileManager.default.isExecutableFile(atPath: demoAgent))
    )
    func demoAgentIsNeverAsked() throws {
        let harness = try GeoClueHarness(agentWait: 0.5)
        let demo = try Self.startDemoAgent(harness)
        defer { demo.kill9() }  // it has nothing to save, and ignores SIGTERM when the test runner does
        let bridge = try #require(harness.bridge)
        #expect(bridge.waitFor("agent geoclue-demo-agent registered"), "\(bridge.log)\(demo.log)")
        // The demo agent alone holds no Prompts stream, so locd has nobody to ask (P14).
        #expect(try Self.locdAgents(harness) == 0)
        let result = try harness.python(["start", "test.denied"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String)?.contains("locd-agent") == true, "\(reply)")
        #expect(!bridge.log.contains("prompt asked of agent geoclue-demo-agent"), "\(bridge.log)")
        #expect(try Self.authorization(harness, "test.denied")["status"] as? String == "notDetermined")
    }

    @Test(
        "G11, N6: beside GeoClue's demo agent, the user's own locd agent answers, and the client starts",
        .enabled(if: FileManager.default.isExecutableFile(atPath: demoAgent))
    )
    func usersOwnAgentBesideTheDemoAgent() throws {
        let harness = try GeoClueHarness()
        let demo = try Self.startDemoAgent(harness)
        defer { demo.kill9() }
        let bridge = try #require(harness.bridge)
        #expect(bridge.waitFor("agent geoclue-demo-agent registered"), "\(bridge.log)\(demo.log)")
        let agent = try harness.allowingAgent()
        defer { agent.stop() }
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)\(agent.log)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        #expect(!bridge.log.contains("prompt asked of agent geoclue-demo-agent"), "\(bridge.log)")
    }

    @Test("G11: an agent that allows at city level makes the grant approximate: the grid cell, accuracy 5000")
    func cityAgentMakesItApproximate() throws {
        let harness = try GeoClueHarness()
        let agent = try Self.agent(harness, "allow:4")
        defer { agent.closeInput() }
        let result = try harness.python(["where-am-i", "test.city", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["Accuracy"] as? Double == 5000, "\(location)")
        let latitude = try #require(location["Latitude"] as? Double, "\(location)")
        #expect(abs(latitude - GeoClueHarness.latitude) < 0.1 && latitude != GeoClueHarness.latitude, "\(location)")
        // Asked with the app id and the level the client requested.
        #expect(agent.log.contains("{\"asked\": [\"test.city\", 8]}"), "\(agent.log)")
        let record = try Self.authorization(harness, "test.city")
        #expect(record["status"] as? String == "authorizedWhenInUse", "\(record)")
        #expect(record["accuracy"] as? String == "reducedAccuracy", "\(record)")
    }

    @Test("G11: an agent that allows at exact level makes the grant precise: the exact point")
    func exactAgentMakesItPrecise() throws {
        let harness = try GeoClueHarness()
        let agent = try Self.agent(harness, "allow:8")
        defer { agent.closeInput() }
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        #expect(location["Longitude"] as? Double == GeoClueHarness.longitude, "\(location)")
        #expect(agent.log.contains("{\"asked\": [\"test.allowed\", 8]}"), "\(agent.log)")
        let record = try Self.authorization(harness, "test.allowed")
        #expect(record["status"] as? String == "authorizedWhenInUse", "\(record)")
        #expect(record["accuracy"] as? String == "fullAccuracy", "\(record)")
    }

    @Test(
        "G11: AuthorizeApp's reply becomes locd's record: street and up precise, below approximate, refusal or 0 denied",
        arguments: [
            ("allow:6", "authorizedWhenInUse", "fullAccuracy"), ("allow:5", "authorizedWhenInUse", "reducedAccuracy"),
            ("allow:1", "authorizedWhenInUse", "reducedAccuracy"), ("allow:0", "denied", nil),
            ("refuse", "denied", nil),
        ]
    )
    func replyBecomesRecord(mode: String, status: String, accuracy: String?) throws {
        let harness = try GeoClueHarness()
        let agent = try Self.agent(harness, mode)
        defer { agent.closeInput() }
        let result = try harness.python(["start", "test.allowed"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect((reply["started"] != nil) == (status != "denied"), "\(reply)")
        let record = try Self.authorization(harness, "test.allowed")
        #expect(record["status"] as? String == status, "\(record)")
        if let accuracy { #expect(record["accuracy"] as? String == accuracy, "\(record)") }
    }

    @Test("G12: MaxAccuracyLevel 0 refuses the uid's apps with GeoClue's words; below street serves approximate")
    func maxAccuracyLevelFollowsTheAgent() throws {
        let harness = try GeoClueHarness()
        let agent = try Self.agent(harness, "allow:8", maximum: 0)
        defer { agent.closeInput() }
        let available = {
            try harness.busctl([
                "get-property", "org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager",
                "org.freedesktop.GeoClue2.Manager", "AvailableAccuracyLevel",
            ]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try available() == "u 0")
        let refused = try harness.python(["start", "test.allowed"])
        let reply = try #require(refused.objects.first, "\(refused.output)\(refused.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect(
            (reply["message"] as? String)?.hasPrefix("Geolocation disabled for UID \(getuid())") == true,
            "\(reply)"
        )
        #expect((reply["message"] as? String)?.contains("turn Location Services on") == true, "\(reply)")
        #expect(!agent.log.contains("asked"), "\(agent.log)")
        // The person turns location on again, at city level: PropertiesChanged is followed.
        agent.input.fileHandleForWriting.write(Data("max 4\n".utf8))
        #expect(try eventually(timeout: 10, every: 0.05) { try available() == "u 4" })
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        // The agent allows exact, but its MaxAccuracyLevel is city: served the grid cell.
        #expect(location["Accuracy"] as? Double == 5000, "\(location)")
    }

    @Test("G12: MaxAccuracyLevel or RequestedAccuracyLevel changed while a client runs changes its accuracy at once")
    func maxAccuracyLevelChangesRunningClients() throws {
        let harness = try GeoClueHarness()
        let agent = try Self.agent(harness, "allow:8")
        defer { agent.closeInput() }
        let watcher = try harness.pythonRunning(["watch", "test.allowed", "8"])
        defer { watcher.closeInput() }
        // The accuracy of each Location the client was told of, in order.
        let accuracies = {
            watcher.log.split(separator: "\n").compactMap { line -> Double? in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return (object?["location"] as? [String: Any])?["Accuracy"] as? Double
            }
        }
        #expect(eventually(timeout: 10, every: 0.05) { !accuracies().isEmpty }, "\(watcher.log)")
        #expect(accuracies().allSatisfy { $0 < 5000 }, "\(watcher.log)")
        // The person lowers location to city in the desktop while the client runs: the grid cell, no new Start.
        agent.input.fileHandleForWriting.write(Data("max 4\n".utf8))
        #expect(eventually(timeout: 10, every: 0.05) { accuracies().last == 5000 }, "\(watcher.log)")
        // And back to exact: the exact point again, still without a new Start.
        agent.input.fileHandleForWriting.write(Data("max 8\n".utf8))
        #expect(eventually(timeout: 10, every: 0.05) { (accuracies().last ?? 5000) < 5000 }, "\(watcher.log)")
        // The client itself asks for city while it runs: the grid cell again, as GeoClue restarts its locator.
        watcher.input.fileHandleForWriting.write(Data("level 4\n".utf8))
        #expect(eventually(timeout: 10, every: 0.05) { accuracies().last == 5000 }, "\(watcher.log)")
        #expect(watcher.log.components(separatedBy: "\"started\"").count == 2, "\(watcher.log)")
    }

    @Test("G12: MaxAccuracyLevel turning 0 stops the uid's active clients; back above 0 they start again by themselves")
    func maxAccuracyLevelZeroStopsClients() throws {
        let harness = try GeoClueHarness()
        let agent = try Self.agent(harness, "allow:8")
        defer { agent.closeInput() }
        let holder = try harness.pythonRunning(["hold-started", "test.holder"])
        defer { holder.closeInput() }
        #expect(holder.waitFor("\"started\""), "\(holder.log)")
        #expect(try harness.inUse() == "b true")
        agent.input.fileHandleForWriting.write(Data("max 0\n".utf8))
        #expect(try eventually(timeout: 10, every: 0.05) { try harness.inUse() == "b false" })
        // Its locd session ended with it: nothing left to linger.
        #expect(try eventually(timeout: 10, every: 0.05) { try harness.sessions(of: "test.holder").isEmpty })
        // Location on again: the client starts again with no Start of its program, as GeoClue restarts it.
        agent.input.fileHandleForWriting.write(Data("max 8\n".utf8))
        #expect(try eventually(timeout: 10, every: 0.05) { try harness.inUse() == "b true" })
        #expect(try eventually(timeout: 10, every: 0.05) { try harness.sessions(of: "test.holder").count == 1 })
    }

    @Test("G13: an agent that leaves the bus mid-prompt stops being one: the prompt goes to the uid's other agent")
    func leavingAgentHandsOver() throws {
        let harness = try GeoClueHarness()
        let steady = try Self.agent(harness, "allow:8")
        defer { steady.closeInput() }
        let leaving = try Self.agent(harness, "leave")
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        // The latest agent was asked first and left; the earlier one answered.
        #expect(leaving.log.contains("\"asked\""), "\(leaving.log)")
        #expect(steady.log.contains("\"asked\""), "\(steady.log)")
        #expect(eventually(timeout: 10, every: 0.05) { !leaving.process.isRunning })
    }

    @Test("G13: when the last agent leaves mid-prompt, locd-geoclue stops being a locd agent and the prompt times out")
    func lastAgentLeavingWithdraws() throws {
        let harness = try GeoClueHarness(promptTimeout: 3)
        let leaving = try Self.agent(harness, "leave")
        #expect(try eventually(timeout: 10, every: 0.05) { try Self.locdAgents(harness) == 1 })
        let result = try harness.python(["start", "test.unanswered"])
        let reply = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(leaving.log.contains("\"asked\""), "\(leaving.log)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.AccessDenied", "\(reply)")
        #expect((reply["message"] as? String)?.contains("locctl agent") == true, "\(reply)")
        #expect(result.elapsed >= 2.5, "\(result.elapsed) s")
        #expect(try Self.locdAgents(harness) == 0)
        // Not denied: the record is unchanged, so the next Start asks again.
        #expect(try Self.authorization(harness, "test.unanswered")["status"] as? String == "notDetermined")
    }

    @Test("G13: when locd restarts, locd-geoclue opens the prompt stream again and its agents answer as before")
    func promptStreamReopensAfterLocdRestarts() throws {
        let harness = try GeoClueHarness()
        let agent = try Self.agent(harness, "allow:8")
        defer { agent.closeInput() }
        #expect(try eventually(timeout: 10, every: 0.05) { try Self.locdAgents(harness) == 1 })
        harness.locd?.stop()
        // locd again, on the same configuration, socket and state.
        let locd = try ScriptProcess(
            [GeoClueHarness.binary("locd"), "--config", harness.directory + "/locd.toml", "--log-level", "debug"],
            environment: ["INVOCATION_ID": "", "JOURNAL_STREAM": ""],
            logPath: harness.directory + "/locd-again.log"
        )
        defer { locd.stop() }
        #expect(try eventually(timeout: 20, every: 0.1) { try Self.locdAgents(harness) == 1 }, "\(locd.log)")
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        #expect(result.objects.first?["Latitude"] as? Double == GeoClueHarness.latitude, "\(result.output)")
        #expect(agent.log.contains("test.allowed"), "\(agent.log)")
    }

    @Test("G14: an agent that never answers holds no one: locctl agent answers beside it, and alone it times out")
    func silentAgentHoldsNoOne() throws {
        let harness = try GeoClueHarness(promptTimeout: 3)
        let silent = try Self.agent(harness, "silent")
        defer { silent.closeInput() }
        // Two apps at once: each prompt is its own call, both time out at locd's prompt timeout, not one after the
        // other.
        let first = try harness.pythonRunning(["start", "test.unanswered"])
        let second = try harness.pythonRunning(["start", "test.denied"])
        #expect(first.waitFor("\"error\""), "\(first.log)")
        #expect(second.waitFor("\"error\""), "\(second.log)")
        #expect(first.log.contains("locctl agent") && second.log.contains("locctl agent"), "\(first.log)\(second.log)")
        #expect(silent.log.contains("test.unanswered") && silent.log.contains("test.denied"), "\(silent.log)")
        first.closeInput()
        second.closeInput()
        // locctl agent beside the silent one answers (else the Start would fail at the prompt timeout); the silent
        // agent's call is dropped.
        let terminal = try harness.allowingAgent(log: "locctl-agent.log")
        defer { terminal.stop() }
        #expect(try eventually(timeout: 10, every: 0.05) { try Self.locdAgents(harness) == 2 })
        let result = try harness.python(["where-am-i", "test.allowed", "8"])
        #expect(result.objects.first?["Latitude"] as? Double == GeoClueHarness.latitude, "\(result.output)")
        #expect(silent.waitFor("test.allowed", timeout: 10), "\(silent.log)")
    }

    @Test("G15: a GeoClue agent is asked only the prompts of its uid's GeoClue clients, not those of locd's own apps")
    func nativePromptsStayForLocdAgents() throws {
        let harness = try GeoClueHarness()
        let agent = try Self.agent(harness, "allow:8")
        defer { agent.closeInput() }
        #expect(try eventually(timeout: 10, every: 0.05) { try Self.locdAgents(harness) == 1 })
        // An app that talks to locd itself raises a prompt...
        let native = try ScriptProcess(
            [
                GeoClueHarness.binary("locd-example"), "--socket", harness.socket, "--app", "test.allowed", "--seconds",
                "30",
            ],
            logPath: harness.directory + "/native.log"
        )
        defer { native.kill9() }
        let pending = try eventually(timeout: 10, every: 0.05) {
            try Self.status(harness, "pendingPrompts") ?? 0 >= 1
        }
        #expect(pending, "\(native.log)")
        // ...then a GeoClue client's prompt follows it on the stream: only that one is asked of the agent.
        let result = try harness.python(["where-am-i", "test.city", "8"])
        #expect(result.objects.first?["Latitude"] as? Double == GeoClueHarness.latitude, "\(result.output)")
        #expect(agent.log.contains("test.city"), "\(agent.log)")
        #expect(!agent.log.contains("test.allowed"), "\(agent.log)")
        #expect(try Self.authorization(harness, "test.allowed")["status"] as? String == "notDetermined")
    }
}
