import JSON
import LocationProtocol
import Varlink

/// The `AnswerPrompt` calls on their way to locd, each on a connection of its own, sent without waiting (N3): the
/// agent's thread polls their sockets beside the bus, and reads a reply only when its bytes are there, so a locd that
/// is slow or stopped holds no notification and no call to the agent's own name.
final class AnswerCalls {
    /// How a call ended.
    enum Outcome: Equatable {
        /// locd took the answer.
        case taken
        /// locd refused it: the Varlink error name.
        case refused(String)
        /// It could not be sent, or its connection broke before the reply.
        case failed(String)
    }

    private struct Call {
        let prompt: String
        let client: VarlinkClient
    }

    private let socketPath: String
    private var calls: [Call] = []

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Connects and sends `AnswerPrompt(id, answer, accuracy)`; the reply comes from ``receive(ready:)``. A call that
    /// cannot be sent (locd not there, its queue of connections full) ends at once: its outcome.
    func send(prompt: String, answer: String, accuracy: String?) -> Outcome? {
        var parameters: JSONObject = ["id": .string(prompt), "answer": .string(answer)]
        if let accuracy { parameters["accuracy"] = .string(accuracy) }
        do {
            let client = try VarlinkClient(path: socketPath, timeout: 0, nonBlocking: true)
            try client.send(VarlinkCall(method: AdminMethod.answerPrompt.name, parameters: parameters))
            calls.append(Call(prompt: prompt, client: client))
            return nil
        } catch {
            return .failed("\(error)")
        }
    }

    /// The sockets of the calls waiting for their replies, in order.
    var fileDescriptors: [Int32] { calls.map(\.client.fileDescriptor) }

    /// Reads the replies of the calls whose sockets `ready` names; a call only part of whose reply came waits for the
    /// rest.
    func receive(ready: Set<Int32>) -> [(prompt: String, outcome: Outcome)] {
        var outcomes: [(prompt: String, outcome: Outcome)] = []
        calls.removeAll { call in
            guard ready.contains(call.client.fileDescriptor) else { return false }
            let reply: VarlinkReply
            do {
                reply = try call.client.receive()
            } catch VarlinkClient.ClientError.timedOut {
                return false
            } catch {
                outcomes.append((call.prompt, .failed("the connection to locd broke: \(error)")))
                return true
            }
            outcomes.append((call.prompt, reply.error.map(Outcome.refused) ?? .taken))
            return true
        }
        return outcomes
    }
}
