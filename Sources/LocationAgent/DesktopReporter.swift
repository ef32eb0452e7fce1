import JSON
import LocationProtocol
import Varlink

/// `SetDesktop` on one connection of the agent's own, kept open: locd counts the reports while it stays open (L11).
/// Sent without waiting (N3, N15): one call at a time, and a newer report replaces one not yet sent.
final class DesktopReporter {
    /// What reading the connection gave.
    enum Outcome: Equatable {
        /// Nothing to say: a reply taken, or part of one.
        case quiet
        /// locd refused a report: the Varlink error name, said in the log.
        case refused(String)
        /// The connection broke (locd stopped): connect again later and send the newest report again.
        case lost(String)
    }

    private let socketPath: String
    private var client: VarlinkClient?
    /// A call sent whose reply has not come.
    private var waiting = false
    /// The newest report, sent or not: sent again on a new connection.
    private var newest: JSONObject?
    private var unsent = false

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// The connection's socket, polled while it is open: a reply, or locd closing it.
    var fileDescriptor: Int32? { client?.fileDescriptor }

    /// Reports `parameters`, now if no call waits, else once its reply came. Throws when locd cannot be reached.
    func report(_ parameters: JSONObject) throws {
        newest = parameters
        unsent = true
        try flush()
    }

    /// Connects if needed and sends the newest report unsent, if no call waits.
    func flush() throws {
        guard unsent, !waiting, let newest else { return }
        if client == nil { client = try VarlinkClient(path: socketPath, timeout: 0, nonBlocking: true) }
        do {
            try client?.send(VarlinkCall(method: AdminMethod.setDesktop.name, parameters: newest))
        } catch {
            client = nil
            throw error
        }
        unsent = false
        waiting = true
    }

    /// Reads the connection once poll says it is ready.
    func receive() -> Outcome {
        guard let client else { return .quiet }
        let reply: VarlinkReply
        do {
            reply = try client.receive()
        } catch VarlinkClient.ClientError.timedOut {
            return .quiet
        } catch {
            self.client = nil
            waiting = false
            unsent = newest != nil
            return .lost("the connection to locd broke: \(error)")
        }
        waiting = false
        do {
            try flush()
        } catch {
            unsent = true
            return .lost("cannot send to locd: \(error)")
        }
        return reply.error.map(Outcome.refused) ?? .quiet
    }

    /// Whether a whole reply waits in the buffer.
    var hasBufferedReply: Bool { client?.hasBufferedReply ?? false }
}
