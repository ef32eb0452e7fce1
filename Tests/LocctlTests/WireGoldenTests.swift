import Foundation
import JSON
import LocationProtocol
import Testing

@testable import LocctlCommands

/// locctl reads the golden messages of LocationProtocolTests, which locd's encoders write byte for byte.
@Suite("locctl against the golden messages")
struct LocctlWireGoldenTests {
    /// The messages of one golden file of LocationProtocolTests.
    static func golden(_ kind: String) throws -> [JSONValue] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("LocationProtocolTests/Golden/\(kind).json")
        return try #require(JSONValue.parse(Array(try Data(contentsOf: url)))?.arrayValue, "\(kind).json")
    }

    @Test("H1: locctl watch shows each golden event's kind, app with its user, session and detail")
    func events() throws {
        let events = try Self.golden("Event")
        #expect(!events.isEmpty)
        for event in events {
            let line = WatchCommand.render(event, timeZone: Golden.utc, userName: { $0 == 1000 ? "alice" : nil })
            let kind = try #require(event["kind"]?.stringValue)
            let user = event["user"]?.intValue.map { $0 == 1000 ? "[alice]" : "[\($0)]" } ?? ""
            let app = event["appId"].map { ($0.shownAsText.stringValue ?? "") + user } ?? "-" + user
            let suffix = " \(app) \(event["sessionId"]?.stringValue ?? "-") \(event["detail"]?.stringValue ?? "")"
            #expect(line.contains(" \(kind)"), "\(line)")
            #expect(line.hasSuffix(suffix), "\(line) should end with \(suffix)")
        }
    }

    @Test("N2: locctl agent reads each golden prompt and offers its options, numbered")
    func prompts() throws {
        for message in try Self.golden("Prompt") {
            let prompt = try #require(WirePrompt(json: message))
            let text = AgentCommand.render(prompt, agentUser: prompt.user, userName: { _ in nil })
            for (index, option) in prompt.options.enumerated() { #expect(text.contains("\(index + 1)) \(option)")) }
            #expect(PromptChoice.parse("1", for: prompt) == .success(PromptChoice(answer: prompt.options[0])))
        }
    }
}
