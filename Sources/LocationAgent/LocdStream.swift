import JSON
import Varlink

/// One of locd's `more` streams (`Admin.Prompts`, `Admin.Watch`), opened as the agent's own user (H4, H7: that
/// user's apps, no privilege).
///
/// On the agent's one thread, never waiting there: the socket is non-blocking and polled beside the bus, and a read
/// takes only the bytes that are there (a reply only part of which came is finished by a later read).
final class LocdStream {
    /// What one read of the stream gives.
    enum Reply {
        /// A reply's parameters.
        case parameters(JSONObject)
        /// locd ended or refused the stream, or the connection broke.
        case ended(String)
    }

    /// What the stream is called in the log: "the prompt stream".
    let name: String
    private let client: VarlinkClient

    /// Connects and calls `method` with `more`.
    init(socketPath: String, method: String, name: String) throws {
        self.name = name
        client = try VarlinkClient(path: socketPath, timeout: 0, nonBlocking: true)
        try client.send(VarlinkCall(method: method, parameters: [:], more: true))
    }

    var fileDescriptor: Int32 { client.fileDescriptor }

    /// Whether a whole reply waits in the buffer, to be read without polling.
    var hasBufferedReply: Bool { client.hasBufferedReply }

    /// Reads what the stream says now: a reply's parameters, then its end if it is the last.
    func receive() -> [Reply] {
        let reply: VarlinkReply
        do {
            reply = try client.receive()
        } catch VarlinkClient.ClientError.timedOut {
            return []  // Part of a reply came; the rest will.
        } catch {
            return [.ended("\(name) broke: \(error)")]
        }
        if let error = reply.error {
            return [.ended("locd refused \(name): \(VarlinkError(name: error, parameters: reply.parameters))")]
        }
        return [.parameters(reply.parameters)] + (reply.continues ? [] : [.ended("locd ended \(name)")])
    }
}
