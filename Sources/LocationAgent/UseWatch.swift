import JSON
import LocationProtocol
import Varlink

/// locd's side of the indicator (N5): the `io.locd.Admin.Watch` stream of the person's apps' events, and `Status`
/// calls on a connection of their own, sent without waiting so that the events go on being read meanwhile.
final class UseWatch {
    /// What a read of either connection gives.
    enum Reply {
        /// Something happened to the person's apps.
        case event
        /// `Status` answered: the ids of `appsUsingLocation` and `appsUsingLocationInBackground`.
        case status(using: [String], background: [String])
        /// locd ended or refused `Watch` or `Status`, or a connection broke.
        case ended(String)
    }

    private let socketPath: String
    private let stream: LocdStream
    private var status: VarlinkClient?

    /// Connects and asks for the events.
    init(socketPath: String) throws {
        self.socketPath = socketPath
        stream = try LocdStream(socketPath: socketPath, method: AdminMethod.watch.name, name: "the event stream")
    }

    var streamDescriptor: Int32 { stream.fileDescriptor }

    /// The `Status` connection while a call waits for its answer.
    private(set) var statusDescriptor: Int32?

    /// Whether a whole event waits in the buffer, to be read without polling.
    var hasBufferedEvent: Bool { stream.hasBufferedReply }

    /// Whether `Status`'s whole answer waits in the buffer, to be read without polling.
    var hasBufferedStatus: Bool { statusDescriptor != nil && status?.hasBufferedReply == true }

    /// Reads the events there are.
    func receiveEvents() -> [Reply] {
        stream.receive().map { reply in
            switch reply {
            case .parameters: .event
            case .ended(let reason): .ended(reason)
            }
        }
    }

    /// Sends `Status`, on the connection of the last call if locd kept it; the answer is read by ``receiveStatus()``.
    func requestStatus() throws {
        let client = try status ?? VarlinkClient(path: socketPath, timeout: 0, nonBlocking: true)
        status = client
        do {
            try client.send(VarlinkCall(method: AdminMethod.status.name, parameters: [:]))
        } catch {
            status = nil
            throw error
        }
        statusDescriptor = client.fileDescriptor
    }

    /// Reads `Status`'s answer; nothing while only part of it came.
    func receiveStatus() -> [Reply] {
        guard let client = status, statusDescriptor != nil else { return [] }
        let reply: VarlinkReply
        do {
            reply = try client.receive()
        } catch VarlinkClient.ClientError.timedOut {
            return []
        } catch {
            status = nil
            statusDescriptor = nil
            return [.ended("the Status call broke: \(error)")]
        }
        statusDescriptor = nil
        if let error = reply.error {
            return [.ended("locd refused Status: \(VarlinkError(name: error, parameters: reply.parameters))")]
        }
        let status = WireDaemonStatus(json: reply.parameters["status"])
        return [
            .status(using: status?.appsUsingLocation ?? [], background: status?.appsUsingLocationInBackground ?? [])
        ]
    }
}
