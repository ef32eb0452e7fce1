import JSON
import LocationProtocol
import Testing
import Varlink

@testable import LocctlCommands

/// What a line typed at the agent means, and what `agent --answer` gives each kind of prompt.
@Suite("locctl agent answers")
struct PromptChoiceTests {
    static let authorization = WirePrompt(
        id: "p1-1",
        appId: "com.ex.maps",
        kind: "authorization",
        usageDescription: "",
        options: ["allowWhileUsing", "allowOnce", "deny"],
        defaultAccuracy: "full",
        accuracyToggle: true
    )
    static let upgrade = WirePrompt(
        id: "p1-2",
        appId: "com.ex.maps",
        kind: "alwaysUpgrade",
        usageDescription: "",
        options: ["keepWhileUsing", "changeToAlways"],
        defaultAccuracy: "full",
        accuracyToggle: false
    )
    static let accuracy = WirePrompt(
        id: "p1-3",
        appId: "com.ex.maps",
        kind: "temporaryFullAccuracy",
        usageDescription: "",
        options: ["allow", "deny"],
        defaultAccuracy: "reduced",
        accuracyToggle: false
    )

    private func parse(_ line: String, _ prompt: WirePrompt = authorization) -> PromptChoice? {
        try? PromptChoice.parse(line, for: prompt).get()
    }

    @Test("agent: a number or an option name (any case) picks that option")
    func numbersAndNames() {
        #expect(parse("1") == PromptChoice(answer: "allowWhileUsing", accuracy: nil))
        #expect(parse(" 3 ") == PromptChoice(answer: "deny", accuracy: nil))
        #expect(parse("AllowOnce") == PromptChoice(answer: "allowOnce", accuracy: nil))
        #expect(parse("2", Self.upgrade) == PromptChoice(answer: "changeToAlways", accuracy: nil))
    }

    @Test("6.1: with the accuracy toggle, precise or approximate after a grant chooses full or reduced")
    func accuracyWords() {
        #expect(parse("1 approximate") == PromptChoice(answer: "allowWhileUsing", accuracy: "reduced"))
        #expect(parse("allowOnce precise") == PromptChoice(answer: "allowOnce", accuracy: "full"))
        #expect(parse("1 reduced") == PromptChoice(answer: "allowWhileUsing", accuracy: "reduced"))
    }

    @Test("agent: lines that name no answer say what to type instead")
    func refusals() throws {
        for line in ["", "0", "4", "maybe", "1 2 3", "3 precise", "1 blurry"] {
            guard case .failure(let problem) = PromptChoice.parse(line, for: Self.authorization) else {
                Issue.record("\(line) was accepted")
                continue
            }
            #expect(!problem.message.isEmpty)
        }
        #expect(parse("allow", Self.authorization) == nil)
        #expect(parse("1 precise", Self.accuracy) == nil)
        #expect(parse("1 precise", Self.upgrade) == nil)
    }

    @Test("agent --answer: the option itself when the prompt offers it")
    func automaticExact() {
        #expect(PromptChoice.automatic("allowOnce", precise: nil, for: Self.authorization)?.answer == "allowOnce")
        #expect(PromptChoice.automatic("changeToAlways", precise: nil, for: Self.upgrade)?.answer == "changeToAlways")
        #expect(PromptChoice.automatic("deny", precise: nil, for: Self.accuracy)?.answer == "deny")
    }

    @Test("agent --answer: the closest option when the prompt does not offer it")
    func automaticFallbacks() {
        #expect(PromptChoice.automatic("allowWhileUsing", precise: nil, for: Self.accuracy)?.answer == "allow")
        #expect(PromptChoice.automatic("allowWhileUsing", precise: nil, for: Self.upgrade)?.answer == "keepWhileUsing")
        #expect(PromptChoice.automatic("deny", precise: nil, for: Self.upgrade)?.answer == "keepWhileUsing")
        #expect(
            PromptChoice.automatic("changeToAlways", precise: nil, for: Self.authorization)?.answer == "allowWhileUsing"
        )
        #expect(PromptChoice.automatic("allow", precise: nil, for: Self.authorization)?.answer == "allowWhileUsing")
        #expect(PromptChoice.automatic("keepWhileUsing", precise: nil, for: Self.accuracy)?.answer == "deny")
        let none = WirePrompt(
            id: "p1-4",
            appId: "com.ex.maps",
            kind: "authorization",
            usageDescription: "",
            options: []
        )
        #expect(PromptChoice.automatic("allow", precise: nil, for: none) == nil)
    }

    @Test("agent --answer --precise: the accuracy goes only with a grant on a prompt that has the toggle")
    func automaticAccuracy() {
        #expect(
            PromptChoice.automatic("allowWhileUsing", precise: false, for: Self.authorization)?.accuracy == "reduced"
        )
        #expect(PromptChoice.automatic("allowWhileUsing", precise: true, for: Self.authorization)?.accuracy == "full")
        #expect(PromptChoice.automatic("allowWhileUsing", precise: nil, for: Self.authorization)?.accuracy == nil)
        #expect(PromptChoice.automatic("deny", precise: false, for: Self.authorization)?.accuracy == nil)
        #expect(PromptChoice.automatic("allow", precise: false, for: Self.accuracy)?.accuracy == nil)
    }
}
