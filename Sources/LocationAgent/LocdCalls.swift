import JSON
import Varlink

/// Calls to locd on their way, each on a connection of its own, sent without waiting (as N3's answers): the agent's
/// thread polls their sockets beside the bus and reads a reply only when its bytes are there.
final class LocdCalls<Tag> {
    private struct Call {
        let tag: Tag
        let client: VarlinkClient
    }

    /// At most this many calls wait for their replies; one past them is refused at once.
    static var bound: Int { 32 }

    private let socketPath: String
    private var calls: [Call] = []

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Connects and sends `method(parameters)`; `nil` once sent, else why it could not be.
    func send(_ method: String, _ parameters: JSONObject, tag: Tag) -> String? {
        guard calls.count < Self.bound else { return "\(Self.bound) calls to locd wait for their replies already" }
        do {
            let client = try VarlinkClient(path: socketPath, timeout: 0, nonBlocking: true)
            try client.send(VarlinkCall(method: method, parameters: parameters))
            calls.append(Call(tag: tag, client: client))
            return nil
        } catch {
            return "cannot reach locd at \(socketPath): \(error)"
        }
    }

    /// The sockets of the calls waiting for their replies.
    var fileDescriptors: [Int32] { calls.map(\.client.fileDescriptor) }

    /// Reads the replies of the calls whose sockets `ready` names: the parameters, or why there are none (a Varlink
    /// error's name, or a broken connection).
    func receive(ready: Set<Int32>) -> [(tag: Tag, reply: Result<JSONObject, CallFailure>)] {
        var replies: [(tag: Tag, reply: Result<JSONObject, CallFailure>)] = []
        calls.removeAll { call in
            guard ready.contains(call.client.fileDescriptor) else { return false }
            let reply: VarlinkReply
            do {
                reply = try call.client.receive()
            } catch VarlinkClient.ClientError.timedOut {
                return false
            } catch {
                replies.append((call.tag, .failure(CallFailure(description: "the connection to locd broke: \(error)"))))
                return true
            }
            if let error = reply.error {
                let failure = VarlinkError(name: error, parameters: reply.parameters)
                replies.append((call.tag, .failure(CallFailure(description: "\(failure)"))))
            } else {
                replies.append((call.tag, .success(reply.parameters)))
            }
            return true
        }
        return replies
    }
}

/// Why a call to locd gave no answer.
struct CallFailure: Error, CustomStringConvertible {
    let description: String
}
