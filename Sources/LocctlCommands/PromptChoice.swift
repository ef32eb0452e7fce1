import LocationProtocol

/// An answer to a prompt, chosen by a person's typed line or by `agent --answer`.
///
/// Separate from the terminal so that what a line means can be tested without one.
struct PromptChoice: Equatable, Sendable {
    /// The option, as `Admin.AnswerPrompt` names it (`allowWhileUsing`, …).
    var answer: String
    /// `full` or `reduced`, only when the prompt offers the accuracy toggle.
    var accuracy: String?

    /// Words that pick the accuracy of an authorization answer, and the wire value each means.
    static let accuracyWords: [String: String] = [
        "precise": "full", "full": "full", "approximate": "reduced", "reduced": "reduced",
    ]

    /// What a typed line means for `prompt`: a number or an option name, then optionally `precise` or
    /// `approximate` when the prompt has the accuracy toggle.
    /// - Returns: the choice, or a message saying what to type instead.
    static func parse(_ line: String, for prompt: WirePrompt) -> Result<PromptChoice, InputProblem> {
        let options = prompt.options
        let words = line.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        let hint = "type a number from 1 to \(options.count) or an option name"
        guard let first = words.first, words.count <= 2 else { return .failure(InputProblem(hint)) }
        let answer: String
        if let number = Int(first) {
            guard options.indices.contains(number - 1) else { return .failure(InputProblem(hint)) }
            answer = options[number - 1]
        } else if let named = options.first(where: { $0.lowercased() == first }) {
            answer = named
        } else {
            return .failure(InputProblem("\(first) is not an option here; \(hint)"))
        }
        guard words.count == 2 else { return .success(PromptChoice(answer: answer, accuracy: nil)) }
        guard let accuracy = accuracyWords[words[1]] else {
            return .failure(InputProblem("\(words[1]) is not precise or approximate"))
        }
        guard takesAccuracy(answer, prompt) else {
            return .failure(InputProblem("this prompt does not let you choose precise or approximate for \(answer)"))
        }
        return .success(PromptChoice(answer: answer, accuracy: accuracy))
    }

    /// The options tried, in order, when `agent --answer` wants one the prompt does not offer: the
    /// closest in meaning, so that a demo agent set to grant keeps granting and one set to refuse
    /// keeps refusing whatever kind of prompt comes.
    static let fallbacks: [String: [String]] = [
        "allowWhileUsing": ["allowWhileUsing", "allow", "keepWhileUsing", "keepAlways", "allowAlways"],
        "allowOnce": ["allowOnce", "allow", "keepWhileUsing", "keepAlways", "allowAlways"],
        "changeToAlways": ["changeToAlways", "allowWhileUsing", "allow", "keepAlways", "allowAlways"],
        "allow": ["allow", "allowWhileUsing", "changeToAlways", "keepAlways", "allowAlways"],
        "allowAlways": ["allowAlways", "changeToAlways", "keepAlways", "allowWhileUsing", "allow"],
        "keepWhileUsing": ["keepWhileUsing", "allowWhileUsing", "deny", "changeToWhileUsing"],
        "deny": ["deny", "keepWhileUsing", "changeToWhileUsing"],
        "keepAlways": ["keepAlways", "changeToAlways", "allowWhileUsing", "allow", "allowAlways"],
        "changeToWhileUsing": ["changeToWhileUsing", "keepWhileUsing", "deny"],
    ]

    /// The answer `agent --answer wanted` gives `prompt`; `nil` when no option fits.
    /// - Parameter precise: the accuracy to choose where the prompt has the toggle; `nil` keeps its default.
    static func automatic(_ wanted: String, precise: Bool?, for prompt: WirePrompt) -> PromptChoice? {
        let options = prompt.options
        guard let answer = (fallbacks[wanted] ?? [wanted]).first(where: options.contains) else { return nil }
        let accuracy = precise.flatMap { takesAccuracy(answer, prompt) ? ($0 ? "full" : "reduced") : nil }
        return PromptChoice(answer: answer, accuracy: accuracy)
    }

    /// Whether the daemon reads an accuracy with this answer: a grant on an authorization prompt with the toggle.
    static func takesAccuracy(_ answer: String, _ prompt: WirePrompt) -> Bool {
        prompt.accuracyToggle && prompt.kind == "authorization"
            && (answer == "allowWhileUsing" || answer == "allowOnce")
    }
}

/// A typed line that names no answer, and what to type instead.
struct InputProblem: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}
