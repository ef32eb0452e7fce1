import JSON
import Varlink

/// locd's side of the agent: the `io.locd.Admin.Prompts` stream, opened as the agent's own user (H7: that user's
/// prompts, no privilege), and `AnswerPrompt` on a connection of its own.
///
/// Blocking, on the agent's one thread: the stream's socket is polled beside the bus, and a reply is read only when
/// bytes are there.
final class PromptStream {
    /// What one reply of the stream says.
    enum Reply {
        case prompt(JSONValue)
        case withdrawn(String)
        /// locd ended or refused the stream, or the connection broke.
        case ended(String)
    }

    let socketPath: String
    private let client: VarlinkClient

    /// Connects and asks for the prompts.
    init(socketPath: String) throws {
        self.socketPath = socketPath
        client = try VarlinkClient(path: socketPath, timeout: 5)
        try client.send(VarlinkCall(method: "io.locd.Admin.Prompts", parameters: [:], more: true))
    }

    var fileDescriptor: Int32 { client.fileDescriptor }

    /// Whether a whole reply waits in the buffer, to be read without polling.
    var hasBufferedReply: Bool { client.hasBufferedReply }

    /// Reads what the stream says now: a reply can carry a prompt and a withdrawal both.
    func receive() -> [Reply] {
        let reply: VarlinkReply
        do {
            reply = try client.receive()
        } catch VarlinkClient.ClientError.timedOut {
            return []  // Part of a reply came; the rest will.
        } catch {
            return [.ended("the prompt stream broke: \(error)")]
        }
        if let error = reply.error {
            return [
                .ended("locd refused the prompt stream: \(VarlinkError(name: error, parameters: reply.parameters))")
            ]
        }
        var replies: [Reply] = []
        if let prompt = reply.parameters["prompt"] { replies.append(.prompt(prompt)) }
        if let id = reply.parameters["withdrawn"]?.stringValue { replies.append(.withdrawn(id)) }
        if !reply.continues { replies.append(.ended("locd ended the prompt stream")) }
        return replies
    }

    /// Answers prompt `id`; the Varlink error name locd refused it with, or a description of why it could not be
    /// sent, or `nil` when locd took it.
    static func answer(socketPath: String, id: String, answer: String, accuracy: String?) -> String? {
        var parameters: JSONObject = ["id": .string(id), "answer": .string(answer)]
        if let accuracy { parameters["accuracy"] = .string(accuracy) }
        do {
            let client = try VarlinkClient(path: socketPath, timeout: 10)
            try client.call("io.locd.Admin.AnswerPrompt", parameters)
            return nil
        } catch let error as VarlinkError {
            return error.name
        } catch {
            return "\(error)"
        }
    }
}
