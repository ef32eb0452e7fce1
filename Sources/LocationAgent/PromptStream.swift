import JSON
import LocationProtocol
import Varlink

/// locd's side of the prompts: the `io.locd.Admin.Prompts` stream (the answers are ``AnswerCalls``).
final class PromptStream {
    /// What one reply of the stream says.
    enum Reply {
        case prompt(JSONValue)
        case withdrawn(String)
        /// locd ended or refused the stream, or the connection broke.
        case ended(String)
    }

    private let stream: LocdStream

    /// Connects and asks for the prompts.
    init(socketPath: String) throws {
        stream = try LocdStream(socketPath: socketPath, method: AdminMethod.prompts.name, name: "the prompt stream")
    }

    var fileDescriptor: Int32 { stream.fileDescriptor }

    /// Whether a whole reply waits in the buffer, to be read without polling.
    var hasBufferedReply: Bool { stream.hasBufferedReply }

    /// Reads what the stream says now: a reply can carry a prompt and a withdrawal both.
    func receive() -> [Reply] {
        stream.receive().flatMap { reply -> [Reply] in
            switch reply {
            case .parameters(let parameters):
                var replies: [Reply] = []
                if let prompt = parameters["prompt"] { replies.append(.prompt(prompt)) }
                if let id = parameters["withdrawn"]?.stringValue { replies.append(.withdrawn(id)) }
                return replies
            case .ended(let reason):
                return [.ended(reason)]
            }
        }
    }
}
