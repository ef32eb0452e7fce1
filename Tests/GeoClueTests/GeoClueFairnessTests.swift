import Foundation
import JSON
import LocationTestSupport
import Testing

/// One hostile user against the others, through locd-geoclue: what one user's programs take, on the bus and in locd,
/// is counted against that user, so that the others' programs still locate.
@Suite("GeoClue2: one user cannot lock the others out", .serialized)
struct GeoClueFairnessTests {
    @Test(
        "I8, F11: a user's GeoClue clients hold locd connections of its own uid, not the broker's: past its limit it is refused, and another user still gets a location"
    )
    func brokeredConnectionsCountAgainstTheAppsUID() throws {
        // Without the rule, locd-geoclue's connections would be its own (root's here, an administrator's on a
        // desktop): the attacker's 40 clients would take every one of the 24 + 16 connections locd has.
        let harness = try GeoClueHarness(limits: "max-connections = 24\nmax-connections-per-uid = 8")
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        let attacker = try harness.pythonRunning(["hog", "test.allowed", "40"], asUID: GeoClueHarness.ordinaryUID)
        defer { attacker.closeInput() }
        let hogged = try #require(attacker.waitFor(timeout: 60) { $0["started"] != nil }, "\(attacker.log)")
        let refusal = "refusing a connection from uid \(GeoClueHarness.ordinaryUID)"
        let locdLog = { harness.locd?.log ?? "" }
        let refused = eventually(timeout: 10, every: 0.05) { locdLog().contains(refusal) }
        #expect(refused, "\(hogged)\n\(locdLog())")
        #expect(locdLog().contains("through the broker"))

        // The attacker still holds all it got; another user's where-am-i locates beside it.
        let victim = try harness.python(["where-am-i", "test.allowed", "8"], asUID: GeoClueHarness.otherUID)
        let location = try #require(victim.objects.first, "\(victim.output)\(victim.errors)")
        #expect(location["error"] == nil, "\(location)\n\(harness.locd?.log ?? "")")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)")
        #expect(attacker.process.isRunning, "\(attacker.log)")
    }

    @Test("I8, F11: a user's Start past its uid's locd connections answers LimitsExceeded with locd's words")
    func startPastTheUIDsConnectionsIsLimitsExceeded() throws {
        let harness = try GeoClueHarness(limits: "max-connections-per-uid = 2")
        #expect(try harness.locctl(["auth", "test.allowed", "while-using"]).status == 0)
        #expect(try harness.locctl(["auth", "test.city", "while-using"]).status == 0)
        // Two connections: test.allowed's control connection and its stream.
        let holder = try harness.pythonRunning(["hold-started", "test.allowed"], asUID: GeoClueHarness.ordinaryUID)
        defer { holder.closeInput() }
        #expect(holder.waitFor { $0["started"] != nil } != nil, "\(holder.log)")
        // Another app of the same user needs a control connection of its own: there is no room.
        let refused = try harness.python(["start", "test.city"], asUID: GeoClueHarness.ordinaryUID)
        let reply = try #require(refused.objects.first, "\(refused.output)\(refused.errors)")
        #expect(reply["error"] as? String == "org.freedesktop.DBus.Error.LimitsExceeded", "\(reply)")
        #expect((reply["message"] as? String ?? "").contains("max-connections-per-uid"), "\(reply)")
        // Another user is not held to that user's count.
        let other = try harness.python(["start", "test.city"], asUID: GeoClueHarness.otherUID)
        #expect(other.objects.first?["started"] != nil, "\(other.output)\(other.errors)")
    }

    @Test("G8: one user's peers hold 256 clients at most, whichever peers they are; another user's are not counted")
    func clientsPerUIDBounded() throws {
        let harness = try GeoClueHarness()
        var holders: [ScriptProcess] = []
        defer { for holder in holders { holder.closeInput() } }
        var made = 0
        var refusals: [JSONObject] = []
        // Five peers of one user, up to 64 clients each (the most one peer may hold): 258 asked, 256 given.
        for count in [64, 64, 64, 63, 3] {
            let holder = try harness.pythonRunning(["hold-clients", "\(count)"], asUID: GeoClueHarness.ordinaryUID)
            holders.append(holder)
            let reply = try #require(holder.waitFor { $0["made"] != nil }, "\(holder.log)")
            made += reply["made"]?.intValue.map(Int.init) ?? 0
            if reply["error"] != nil { refusals.append(reply) }
        }
        #expect(made == 256, "\(refusals)")
        let refusal = try #require(refusals.first)
        #expect(refusal["error"]?.stringValue == "org.freedesktop.DBus.Error.LimitsExceeded", "\(refusal)")
        #expect(refusal["message"]?.stringValue?.contains("DeleteClient") == true, "\(refusal)")
        let other = try harness.python(["create-clients", "3"], asUID: GeoClueHarness.otherUID)
        #expect(other.objects.first?["made"] as? Int == 3, "\(other.output)\(other.errors)")
        // The first user's count is freed with its clients: a peer that leaves gives its room back.
        holders.removeFirst().closeInput()
        let again = try eventually(timeout: 10, every: 0.05) {
            let result = try harness.python(["create-clients", "64"], asUID: GeoClueHarness.ordinaryUID)
            return result.objects.first?["made"] as? Int == 64
        }
        #expect(again)
    }

    /// H9 on locd-geoclue's bounds. dbus-daemon turns away a uid the password database does not know, so every peer
    /// of this bus has an account of its own, and a uid inside a range counts as itself: these tests make a real
    /// account inside nobody's range and show that nobody filling its bound does not lock it out. That a uid with no
    /// account shares its user's bounds is shown on locd's socket (ConnectionLimitTests) and of the table itself
    /// (SubordinateTableTests), which locd-geoclue reads and asks the same way.
    private func delegatingHarness() throws -> (GeoClueHarness, TestAccount) {
        let account = try TestAccount(prefix: "locdh9g", uids: 200_100...265_000)
        do {
            let harness = try GeoClueHarness(
                subordinateUIDs: "# rootless containers\n\(GeoClueHarness.ordinaryUID):200000:65536\n"
            )
            return (harness, account)
        } catch {
            account.remove()
            throw error
        }
    }

    @Test(
        "H9, G8: a real account inside a user's range counts as itself: that user holding its 256 clients does not refuse the account's, and the overlap is logged"
    )
    func accountInsideARangeKeepsItsClients() throws {
        let (harness, account) = try delegatingHarness()
        defer { account.remove() }
        var holders: [ScriptProcess] = []
        defer { for holder in holders { holder.closeInput() } }
        for _ in 0..<4 {
            let holder = try harness.pythonRunning(["hold-clients", "64"], asUID: GeoClueHarness.ordinaryUID)
            holders.append(holder)
            let reply = try #require(holder.waitFor { $0["made"] != nil }, "\(holder.log)")
            #expect(reply["made"]?.intValue == 64, "\(reply)")
        }
        let refused = try harness.python(["create-clients", "3"], asUID: GeoClueHarness.ordinaryUID)
        #expect(refused.objects.isEmpty, "\(refused.output)")
        // Counted as nobody's, as before, the account's first CreateClient would be refused.
        let own = try harness.python(["create-clients", "3"], asUID: account.uid)
        #expect(own.objects.first?["made"] as? Int == 3, "\(own.output)\(own.errors)")
        let log = harness.bridge?.log ?? ""
        #expect(log.contains(":2: uid \(account.uid) is the account \(account.name), inside the range"), "\(log)")
    }

    @Test(
        "H9, G14: a real account inside a user's range counts as itself: that user's 4 agents do not refuse its agent"
    )
    func accountInsideARangeKeepsItsAgent() throws {
        let (harness, account) = try delegatingHarness()
        defer { account.remove() }
        var agents: [ScriptProcess] = []
        defer { for agent in agents { agent.closeInput() } }
        for _ in 0..<4 {
            agents.append(try GeoClueAgentTests.agent(harness, "allow:8", asUID: GeoClueHarness.ordinaryUID))
        }
        let fifth = try GeoClueAgentTests.agent(
            harness,
            "allow:8",
            asUID: GeoClueHarness.ordinaryUID,
            awaiting: "\"refused\""
        )
        agents.append(fifth)
        #expect(!fifth.log.contains("\"registered\""), "\(fifth.log)")
        // Counted as nobody's, as before, this one would be the sixth and refused.
        agents.append(try GeoClueAgentTests.agent(harness, "allow:8", asUID: account.uid))
    }

    @Test(
        "G14: one user's clients fill only that user's 16 prompts for GeoClue agents; another user's prompt still reaches its agent"
    )
    func promptsPerUIDBounded() throws {
        // Every app id a client names without a manifest raises a prompt (I11, "ask"): 20 apps of one user.
        let harness = try GeoClueHarness(unknownApps: "ask")
        let agent = try GeoClueAgentTests.agent(harness, "allow:8", asUID: GeoClueHarness.otherUID)
        defer { agent.closeInput() }
        // The attacker registers a GeoClue agent of its own that never answers: locd-geoclue's stream then carries
        // its user's prompts too (without one, locd offers locd-geoclue none of them, P14).
        let silent = try GeoClueAgentTests.agent(harness, "silent", asUID: GeoClueHarness.ordinaryUID)
        defer { silent.closeInput() }
        var attackers: [ScriptProcess] = []
        defer { for attacker in attackers { attacker.closeInput() } }
        // Four app ids per peer, the most a peer may start clients for at once (G8).
        for peer in 0..<5 {
            let apps = (0..<4).map { "evil.app\(peer * 4 + $0)" }
            let attacker = try harness.pythonRunning(["pending"] + apps, asUID: GeoClueHarness.ordinaryUID)
            attackers.append(attacker)
            #expect(attacker.waitFor { $0["sent"] != nil } != nil, "\(attacker.log)")
        }
        let bridge = try #require(harness.bridge)
        #expect(bridge.waitFor("per uid): prompt"), "\(bridge.log)")
        // The other user's own prompt is kept and asked of its agent, which allows it.
        let result = try harness.python(["where-am-i", "test.city", "8"], asUID: GeoClueHarness.otherUID)
        let location = try #require(result.objects.first, "\(result.output)\(result.errors)")
        #expect(location["Latitude"] as? Double == GeoClueHarness.latitude, "\(location)\n\(bridge.log)")
        #expect(agent.log.contains("{\"asked\": [\"test.city\", 8]}"), "\(agent.log)")
        // Of the first user's 20 prompts, 16 were kept: the rest were left to locd's other agents, one line each.
        let left = bridge.log.split(separator: "\n").filter { $0.contains("per uid): prompt") }
        #expect(left.count == 4, "\(left)")
    }
}
