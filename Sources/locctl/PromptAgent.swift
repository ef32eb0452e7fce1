import ArgumentParser
import Foundation
import JSON
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// The agent's loop: prompts from one connection, answers on another, the terminal in between.
struct PromptAgent {
    let stream: VarlinkClient
    let answerer: VarlinkClient
    let automatic: AgentAnswer?
    let precise: Bool?
    private var queue: [JSONValue] = []
    private var shown: JSONValue?
    private var input = LineReader(descriptor: 0)
    private let style = Style.standardOutput

    init(stream: VarlinkClient, answerer: VarlinkClient, automatic: AgentAnswer?, precise: Bool?) {
        self.stream = stream
        self.answerer = answerer
        self.automatic = automatic
        self.precise = precise
    }

    mutating func run() throws {
        if automatic == nil {
            printLine("Waiting for location prompts; Ctrl-C or end of input stops.")
        }
        while true {
            showNextIfIdle()
            if stream.hasBufferedReply {
                try receivePrompt()
                continue
            }
            var descriptors = [pollfd(fd: stream.fileDescriptor, events: Int16(POLLIN), revents: 0)]
            if automatic == nil && !input.atEnd {
                descriptors.append(pollfd(fd: 0, events: Int16(POLLIN), revents: 0))
            }
            guard poll(&descriptors, nfds_t(descriptors.count), -1) > 0 else { continue }
            if descriptors[0].revents != 0 { try receivePrompt() }
            if descriptors.count > 1 && descriptors[1].revents != 0 {
                for line in input.readAvailable() { answerTyped(line) }
                if input.atEnd { return }
            }
        }
    }

    private static func id(_ prompt: JSONValue?) -> String? { prompt?["id"]?.stringValue }

    /// Shows the oldest prompt not yet answered, and answers it at once in automatic mode.
    private mutating func showNextIfIdle() {
        guard shown == nil, let next = queue.first else { return }
        shown = next
        print(AgentCommand.render(next, style: style, agentUser: Users.current), terminator: "")
        if let automatic {
            guard let choice = PromptChoice.automatic(automatic.rawValue, precise: precise, for: next) else {
                printLine("  none of these options is like \(automatic.rawValue); leaving the prompt to another agent")
                finish(next)
                return
            }
            send(choice, to: next)
        } else {
            askForAnswer()
        }
    }

    private func askForAnswer() {
        let count = shown?["options"]?.arrayValue?.count ?? 0
        print("Answer (1-\(count) or an option name): ", terminator: "")
        fflush(nil)  // nil: every stream; Swift 6 forbids naming the global `stdout`.
    }

    private mutating func receivePrompt() throws {
        let reply: VarlinkReply
        do {
            reply = try stream.receive()
        } catch VarlinkClient.ClientError.timedOut {
            return  // Part of a reply arrived; the rest will.
        } catch {
            throw CommandFailure.report(error)
        }
        if let error = reply.error {
            throw CommandFailure.report(VarlinkError(name: error, parameters: reply.parameters))
        }
        if let prompt = reply.parameters["prompt"], let id = Self.id(prompt),
            !queue.contains(where: { Self.id($0) == id })
        {
            queue.append(prompt)
        }
        if let withdrawn = reply.parameters["withdrawn"]?.stringValue {
            if Self.id(shown) == withdrawn {
                printLine("\n  prompt \(withdrawn) was withdrawn: answered elsewhere, timed out or no longer needed")
                shown = nil
            }
            queue.removeAll { Self.id($0) == withdrawn }
        }
        if !reply.continues {
            printError("locd ended the prompt stream; run locctl agent again once locd is back.")
            throw ExitCode.failure
        }
    }

    private mutating func answerTyped(_ line: String) {
        guard let prompt = shown else {
            if !line.trimmingCharacters(in: .whitespaces).isEmpty { printLine("  no prompt is waiting") }
            return
        }
        switch PromptChoice.parse(line, for: prompt) {
        case .success(let choice):
            send(choice, to: prompt)
        case .failure(let problem):
            printLine("  \(problem.message)")
            askForAnswer()
        }
    }

    /// Sends the answer; a prompt that is gone meanwhile is reported and dropped, an answer the
    /// daemon refuses is reported and asked again.
    private mutating func send(_ choice: PromptChoice, to prompt: JSONValue) {
        guard let id = Self.id(prompt) else { return finish(prompt) }
        var parameters: JSONObject = ["id": .string(id), "answer": .string(choice.answer)]
        if let accuracy = choice.accuracy { parameters["accuracy"] = .string(accuracy) }
        do {
            try answerer.call("io.locd.Admin.AnswerPrompt", parameters)
            let accuracy = choice.accuracy.map { $0 == "full" ? " (precise)" : " (approximate)" } ?? ""
            printLine("  answered \(id): \(choice.answer)\(accuracy)")
            finish(prompt)
        } catch let error as VarlinkError where error.name == "io.locd.Admin.InvalidAnswer" && automatic == nil {
            printError(CommandFailure.message(for: error))
            askForAnswer()
        } catch {
            printError(CommandFailure.message(for: error))
            finish(prompt)
        }
    }

    private mutating func finish(_ prompt: JSONValue) {
        let id = Self.id(prompt)
        queue.removeAll { Self.id($0) == id }
        if Self.id(shown) == id { shown = nil }
    }
}
