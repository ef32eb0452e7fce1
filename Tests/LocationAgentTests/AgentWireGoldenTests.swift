import JSON
import LocationTestSupport
import Testing

@testable import LocationAgent

/// locd-agent reads the golden prompts of LocationProtocolTests, which locd's encoder writes byte for byte.
@Suite("locd-agent against the golden messages")
struct AgentWireGoldenTests {
    @Test("N2: locd-agent reads each golden prompt: its id, app, kind, words, options, toggle, default and broker")
    func prompts() throws {
        let messages = try WireGolden.messages("Prompt")
        #expect(!messages.isEmpty)
        for message in messages {
            let prompt = try #require(Prompt(message), "\(message.serialized)")
            #expect(prompt.id == message["id"]?.stringValue)
            #expect(prompt.appID == message["appId"]?.stringValue)
            #expect(prompt.kind == message["kind"]?.stringValue)
            #expect(prompt.usageDescription == message["usageDescription"]?.stringValue)
            #expect(prompt.options == message["options"]?.arrayValue?.compactMap(\.stringValue))
            #expect(prompt.accuracyToggle == message["accuracyToggle"]?.boolValue)
            #expect(prompt.preciseByDefault == (message["defaultAccuracy"]?.stringValue == "full"))
            #expect(prompt.brokered == (message["brokered"]?.boolValue ?? false))
        }
    }
}
