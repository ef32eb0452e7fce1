import LocationTestSupport
import Testing

@testable import LocationCore

/// P14 in the core: a prompt nobody can answer is dismissed after `agent-wait`, not held for `prompt-timeout`.
@Suite("Agent wait")
struct AgentWaitTests {
    private static let alice: UInt32 = 1000
    private static let bob: UInt32 = 1001
    private static let maps = "com.ex.maps"
    private static let alicesMaps = AppKey(maps, user: alice)
    private static let configuration = CoreConfiguration(promptTimeout: .seconds(120), agentWait: .seconds(5))

    private static func toldNobody(_ actions: [Action]) -> [AppKey] {
        actions.compactMap { if case .nobodyToAsk(let app) = $0 { app } else { nil } }
    }

    private static func withdrawn(_ h: Harness, on stream: CallID) -> [PromptID] {
        h.messages(to: stream, inLast: false).compactMap { if case .withdrawn(let id) = $0 { id } else { nil } }
    }

    @Test(
        "P14: a shown prompt no agent is offered is dismissed after agent-wait; the record stays and the shell is told"
    )
    func dismissedWithNoAgent() throws {
        var h = Harness(configuration: Self.configuration)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        let created = h.create(alice, .whenInUse)
        let session = try #require(created)
        #expect(h.prompts(Self.alicesMaps).map(\.kind) == [.authorization])
        #expect(h.mask(session)?.contains(.authorizationRequestInProgress) == true)
        h.advance(4.9)
        #expect(h.prompts(Self.alicesMaps).count == 1, "still within agent-wait")
        h.advance(0.2)
        #expect(h.prompts(Self.alicesMaps).isEmpty)
        #expect(Self.toldNobody(h.log) == [Self.alicesMaps])
        #expect(h.status(Self.alicesMaps) == .notDetermined, "dismissed as P8 says: the record is unchanged")
        #expect(h.mask(session)?.contains(.authorizationRequestInProgress) == false)
        // Not raised again until asked (P8): the same session waiting longer raises nothing.
        h.advance(60)
        #expect(h.prompts(Self.alicesMaps).isEmpty)
    }

    @Test("P14: an agent of the prompt's user that opens within the wait is sent the prompt, which then stays pending")
    func agentOpeningWithinTheWait() {
        var h = Harness(configuration: Self.configuration)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        h.advance(3)
        let agent = h.person(Self.alice)
        let stream = h.call(agent, .prompts)
        #expect(h.messages(to: stream).contains { if case .prompt = $0 { true } else { false } })
        h.advance(60)
        #expect(h.prompts(Self.alicesMaps).count == 1, "an agent is there: only prompt-timeout ends it")
        #expect(Self.toldNobody(h.log).isEmpty)
        h.advance(60)
        #expect(h.prompts(Self.alicesMaps).isEmpty, "P8 at 120 s")
    }

    @Test("P14: when the last agent closes while a prompt is shown, the wait counts from then")
    func lastAgentLeaving() {
        var h = Harness(configuration: Self.configuration)
        let agent = h.person(Self.alice)
        let stream = h.call(agent, .prompts)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        h.advance(30)
        #expect(h.prompts(Self.alicesMaps).count == 1)
        h.disconnect(agent)
        #expect(Self.withdrawn(h, on: stream).isEmpty, "a closed stream hears nothing")
        h.advance(4.9)
        #expect(h.prompts(Self.alicesMaps).count == 1, "5 s from the departure, not from the prompt")
        h.advance(0.2)
        #expect(h.prompts(Self.alicesMaps).isEmpty)
        #expect(Self.toldNobody(h.log) == [Self.alicesMaps])
    }

    @Test("P14: an agent that came and went during the wait leaves a full wait from its departure")
    func agentComingAndGoing() {
        var h = Harness(configuration: Self.configuration)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        h.advance(4)
        let agent = h.person(Self.alice)
        h.call(agent, .prompts)
        h.advance(0.5)
        h.disconnect(agent)
        h.advance(4.9)
        #expect(h.prompts(Self.alicesMaps).count == 1, "the first wait's deadline no longer stands")
        h.advance(0.2)
        #expect(h.prompts(Self.alicesMaps).isEmpty)
    }

    @Test("P14, H7: another user's agent does not count; an administrator's agent of every user's does")
    func whichAgentsCount() throws {
        var h = Harness(configuration: Self.configuration)
        let bobsAgent = h.person(Self.bob)
        h.call(bobsAgent, .prompts)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        h.advance(5.1)
        #expect(h.prompts(Self.alicesMaps).isEmpty, "Bob's agent is never offered Alice's prompt")
        // An administrator's plain stream is offered its own uid's prompts only; with everyone, every user's.
        let admin = h.connect(uid: 0)
        h.call(admin, .prompts)
        let broker = h.connect(uid: 0)
        h.call(broker, .promptsOfEveryone)
        let created = h.create(alice, .whenInUse)
        let again = try #require(created)
        #expect(h.prompts(Self.alicesMaps).count == 1)
        h.advance(60)
        #expect(h.prompts(Self.alicesMaps).count == 1, "the every-user stream is offered it")
        #expect(h.mask(again)?.contains(.authorizationRequestInProgress) == true)
    }

    @Test(
        "P14, H7, G11: an every-user stream naming its users counts for their prompts alone; its replacement leaves no gap"
    )
    func everyUserStreamNamingItsUsers() throws {
        var h = Harness(configuration: Self.configuration)
        let bobsMaps = AppKey(Self.maps, user: Self.bob)
        let broker = h.connect(uid: 0)
        let stream = h.call(broker, .promptsOfUsers([Self.bob]))
        #expect(h.messages(to: stream, inLast: false) == [.agentCounted], "counted, and told so first")
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        let bob = h.launch(Self.maps, user: Self.bob, state: .foreground)
        _ = h.create(bob, .whenInUse)
        let offered = h.messages(to: stream, inLast: false).compactMap {
            if case .prompt(let view) = $0 { view.user } else { nil }
        }
        #expect(offered == [Self.bob], "offered Bob's prompt, never Alice's")
        h.advance(5.1)
        #expect(h.prompts(Self.alicesMaps).isEmpty, "Alice has no agent: dismissed after agent-wait, not held")
        #expect(Self.toldNobody(h.log) == [Self.alicesMaps])
        #expect(h.prompts(bobsMaps).count == 1, "the stream counts as Bob's agent")
        // The set grows: a new stream with both is counted before the old one closes, and is sent Bob's prompt again.
        let replacing = h.connect(uid: 0)
        let wider = h.call(replacing, .promptsOfUsers([Self.alice, Self.bob]))
        let sent = h.messages(to: wider, inLast: false)
        #expect(sent.first == .agentCounted)
        #expect(sent.contains { if case .prompt(let view) = $0 { view.user == Self.bob } else { false } })
        h.disconnect(broker)
        let created = h.create(alice, .whenInUse)
        _ = try #require(created)
        h.advance(60)
        #expect(h.prompts(Self.alicesMaps).count == 1, "Alice's prompt now has an agent: only prompt-timeout ends it")
        #expect(h.prompts(bobsMaps).count == 1, "Bob's prompt never lost its agent")
        #expect(Self.toldNobody(h.log) == [Self.alicesMaps], "nobody told again since the first dismissal")
    }

    @Test("P14: the core's default has no wait, so the seeds' rules run without agents as before")
    func noWaitByDefault() {
        var h = Harness()
        let client = h.launch("com.ex.maps", state: .foreground)
        _ = h.create(client, .whenInUse)
        h.advance(119)
        #expect(h.prompts("com.ex.maps").count == 1)
        #expect(Self.toldNobody(h.log).isEmpty)
    }
}
