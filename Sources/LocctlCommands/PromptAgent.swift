import ArgumentParser
import DisplayText
import Foundation
import JSON
import LocationProtocol
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// The agent's loop: prompts from one connection, each answer on a connection of its own, the terminal in between.
///
/// The answering connection is opened for each answer: one held open from the start and silent until the first
/// prompt would be closed by locd at `idle-timeout`, and the first answer lost with it. The stream is opened again
/// when locd ends it (a restart), and answers typed or piped in before their prompt came wait for it.
struct PromptAgent {
    /// Opens a connection to locd.
    let connect: () throws -> VarlinkClient
    /// The `Prompts` call's parameters (`everyone` for `--all-users`).
    let parameters: JSONObject
    let automatic: AgentAnswer?
    let precise: Bool?
    private var stream: VarlinkClient
    private var queue: [WirePrompt] = []
    private var shown: WirePrompt?
    private var input = LineReader(descriptor: 0)
    /// Lines typed while no prompt was shown, for the prompts to come, oldest first; at most ``maximumEarly``.
    private var early: [String] = []
    private let style = Style.standardOutput
    static let maximumEarly = 64
    /// The waits between attempts to open the stream again: 1 s, doubling to 30 s.
    static let retrySeconds = (first: 1.0, most: 30.0)

    init(
        connect: @escaping () throws -> VarlinkClient,
        parameters: JSONObject,
        automatic: AgentAnswer?,
        precise: Bool?
    ) throws {
        self.connect = connect
        self.parameters = parameters
        self.automatic = automatic
        self.precise = precise
        do {
            stream = try Self.openStream(connect, parameters)
        } catch {
            throw CommandFailure.report(error)
        }
    }

    /// Connects and asks for the prompts; the caller reports a failure, or, waiting for locd, says nothing of it.
    private static func openStream(
        _ connect: () throws -> VarlinkClient,
        _ parameters: JSONObject
    ) throws -> VarlinkClient {
        let stream = try connect()
        try stream.send(VarlinkCall(method: AdminMethod.prompts.name, parameters: parameters, more: true))
        return stream
    }

    mutating func run() throws {
        if automatic == nil {
            printLine("Waiting for location prompts; Ctrl-C or end of input stops.")
        }
        while true {
            showNextIfIdle()
            // At the end of its input the agent ends, once no answer typed ahead waits for its prompt.
            if input.atEnd && early.isEmpty && automatic == nil { return }
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
            }
        }
    }

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
        } else if !early.isEmpty {
            answerTyped(early.removeFirst())
        } else {
            askForAnswer()
        }
    }

    private func askForAnswer() {
        let count = shown?.options.count ?? 0
        print("Answer (1-\(count) or an option name): ", terminator: "")
        fflush(nil)  // nil: every stream; Swift 6 forbids naming the global `stdout`.
    }

    private mutating func receivePrompt() throws {
        let reply: VarlinkReply
        do {
            reply = try stream.receive()
        } catch VarlinkClient.ClientError.timedOut {
            return  // Part of a reply arrived; the rest will.
        } catch VarlinkClient.ClientError.closed {
            // The connection ended without a final reply: locd stopped or restarted.
            return try reopen()
        } catch {
            throw CommandFailure.report(error)
        }
        if let error = reply.error {
            throw CommandFailure.report(VarlinkError(name: error, parameters: reply.parameters))
        }
        // locd sends the pending prompts again on a stream opened anew: one already here is not queued twice.
        if let prompt = WirePrompt(json: reply.parameters["prompt"]),
            !queue.contains(where: { $0.id == prompt.id }), shown?.id != prompt.id
        {
            queue.append(prompt)
        }
        if let withdrawn = reply.parameters["withdrawn"]?.stringValue {
            if shown?.id == withdrawn {
                printLine(
                    "\n  prompt \(withdrawn.escapedForDisplay) was withdrawn: answered elsewhere, timed out or no longer needed"
                )
                shown = nil
            }
            queue.removeAll { $0.id == withdrawn }
        }
        if !reply.continues { try reopen() }
    }

    /// locd ended the stream (a restart, or it stopped): the agent opens it again as soon as locd is back, and
    /// locd sends the prompts still pending. What is queued or shown stays: an answer to a prompt gone meanwhile is
    /// told `NoSuchPrompt` and dropped.
    private mutating func reopen() throws {
        printLine("  locd ended the prompt stream; waiting for locd to come back…")
        var wait = Self.retrySeconds.first
        while true {
            usleep(UInt32(wait * 1_000_000))
            if let reopened = try? Self.openStream(connect, parameters) {
                stream = reopened
                printLine("  connected to locd again")
                return
            }
            wait = min(wait * 2, Self.retrySeconds.most)
        }
    }

    private mutating func answerTyped(_ line: String) {
        guard let prompt = shown else {
            // Typed or piped ahead of its prompt: it answers the next one to come.
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
            if early.count < Self.maximumEarly {
                early.append(line)
            } else {
                printLine("  no prompt is waiting, and \(Self.maximumEarly) answers already wait for theirs")
            }
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
    private mutating func send(_ choice: PromptChoice, to prompt: WirePrompt) {
        let id = prompt.id
        var parameters: JSONObject = ["id": .string(id), "answer": .string(choice.answer)]
        if let accuracy = choice.accuracy { parameters["accuracy"] = .string(accuracy) }
        do {
            try connect().call(AdminMethod.answerPrompt.name, parameters)
            let accuracy = choice.accuracy.map { $0 == "full" ? " (precise)" : " (approximate)" } ?? ""
            printLine("  answered \(id): \(choice.answer)\(accuracy)")
            finish(prompt)
        } catch let error as VarlinkError where error.name == WireErrorName.invalidAnswer.name && automatic == nil {
            printError(CommandFailure.message(for: error))
            askForAnswer()
        } catch {
            printError(CommandFailure.message(for: error))
            finish(prompt)
        }
    }

    private mutating func finish(_ prompt: WirePrompt) {
        queue.removeAll { $0.id == prompt.id }
        if shown?.id == prompt.id { shown = nil }
    }
}
