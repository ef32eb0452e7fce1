import Foundation
import JSON
import LocationTestSupport
import Testing

/// A `Start` whose app's prompt is pending, decided on the session's own updates stream (SEMANTICS G18), with the
/// real locd, locd-geoclue and a GeoClue agent on a private system bus.
@Suite("GeoClue2: a Start waiting for its prompt is one conversation with locd")
struct GeoCluePendingPromptTests {
    /// How many calls locd has run since it started (`Admin.Status`'s `calls`, F19).
    static func calls(_ harness: GeoClueHarness) throws -> Int {
        try #require(try GeoClueAgentTests.status(harness, "calls"))
    }

    @Test(
        "G18: a prompt answered while Start waits starts the client with no call of locd-geoclue's but the answer"
    )
    func answeredPromptIsOneConversation() throws {
        let harness = try GeoClueHarness(promptTimeout: 120)
        // An agent that holds AuthorizeApp until the test says: the prompt stays pending meanwhile.
        let agent = try GeoClueAgentTests.agent(harness, "silent")
        defer { agent.closeInput() }
        #expect(try eventually(timeout: 20) { try GeoClueAgentTests.locdAgents(harness) == 1 })
        let client = try harness.pythonRunning(["start-waiting", "test.unanswered"])
        defer { client.closeInput() }
        #expect(eventually(timeout: 20, every: 0.05) { agent.log.contains("\"asked\"") }, "\(agent.log)")
        // Once nothing else runs, two reads of the count apart are the reads' own calls alone.
        var (before, reads) = (0, 0)
        let quiet = try eventually(timeout: 10, every: 0.1) {
            let first = try Self.calls(harness)
            let second = try Self.calls(harness)
            let third = try Self.calls(harness)
            (before, reads) = (third, third - second)
            return second - first == third - second
        }
        #expect(quiet)
        agent.send("answer 8")
        let started = client.waitFor(timeout: 20) { $0["started"] != nil || $0["error"] != nil }
        #expect(started?["started"] != nil, "\(client.log)")
        #expect(
            eventually(timeout: 20, every: 0.05) { GeoClueResumeTests.locations(client) >= 1 },
            "\(client.log)"
        )
        // The agent's answer (locd-geoclue's AnswerPrompt) and this read: no diagnostics stream ended, no
        // GetAuthorization, no second stream connection (Hello, LiveUpdates) for the client's fixes.
        let after = try Self.calls(harness)
        #expect(after - before == 1 + reads, "\(after - before) calls between, reads cost \(reads)")
    }
}
