import JSON
import LocationProtocol
import Logging
import Synchronization
import Varlink

/// locd-geoclue as one of locd's prompt agents: the `io.locd.Admin.Prompts` stream of the prompts of the users that
/// have a GeoClue agent it asks, open while there is one, and `AnswerPrompt` for the answers those agents give
/// (SEMANTICS G11, G13, H7, P14).
///
/// The stream asks for every user's prompts (`everyone: true`), narrowed to those users (`users`): locd-geoclue hands
/// each to the GeoClue agent of the prompt's own user, so its plain stream, offered only its own uid's, would carry
/// none of theirs, and a stream of every user's would count as an agent for users it can never ask (P14). When the
/// set changes, a stream of the new set is opened and the old one closed once locd counts the new one (its first,
/// empty reply), so that locd never sees locd-geoclue without a stream while it has agents. Closing the stream
/// withdraws locd-geoclue cleanly, and locd's prompts then wait for another agent or time out (P8, P14). Both need
/// locd's Admin privilege (I3): the unit's `SupplementaryGroups=locd`.
final class PromptLink: Sendable {
    /// What the stream tells, handed to the bus thread by the owner.
    struct Handlers: Sendable {
        var prompt: @Sendable (JSONValue) async -> Void
        var withdrawn: @Sendable (String) async -> Void
        /// The stream ended (locd restarted, or refused it): every prompt it sent is gone with it.
        var lost: @Sendable () async -> Void
    }

    /// The streams open: the one of the newest set of users, and those it replaces until locd counts it.
    private struct Streams {
        var users: Set<UInt32> = []
        var newest = 0
        var tasks: [Int: Task<Void, Never>] = [:]
    }

    private let socketPath: String
    private let handlers: Handlers
    private let logger: Logger
    private let streams = Mutex(Streams())
    /// How long to wait before opening the stream again after locd ended it: doubled after each failure in a row
    /// (a refusal repeats until the configuration changes), up to the second value.
    private let retrySeconds: (first: Double, most: Double)

    init(socketPath: String, handlers: Handlers, logger: Logger, retrySeconds: (Double, Double) = (1, 60)) {
        self.socketPath = socketPath
        self.handlers = handlers
        self.logger = logger
        self.retrySeconds = retrySeconds
    }

    var isOpen: Bool { streams.withLock { !$0.tasks.isEmpty } }

    /// Holds the stream of `users`' prompts, opening it again whenever locd ends it; a new set opens a new stream
    /// that replaces the old one once locd counts it, and no users closes it.
    func serve(users: Set<UInt32>) {
        streams.withLock { streams in
            guard !users.isEmpty else {
                for task in streams.tasks.values { task.cancel() }
                streams.tasks = [:]
                streams.users = []
                return
            }
            guard users != streams.users || streams.tasks[streams.newest] == nil else { return }
            streams.newest += 1
            streams.users = users
            let serial = streams.newest
            streams.tasks[serial] = Task { await self.serve(serial, users: users) }
        }
    }

    /// Closes every stream: locd no longer counts locd-geoclue as an agent.
    func close() { serve(users: []) }

    /// locd counts stream `serial`: the streams it replaces close.
    private func counted(_ serial: Int) {
        streams.withLock { streams in
            for (older, task) in streams.tasks where older < serial {
                task.cancel()
                streams.tasks[older] = nil
            }
        }
    }

    /// Whether stream `serial` is the newest one, which is opened again when locd ends it; a replaced one is not.
    private func isNewest(_ serial: Int) -> Bool {
        streams.withLock { $0.newest == serial && $0.tasks[serial] != nil }
    }

    private func serve(_ serial: Int, users: Set<UInt32>) async {
        var delay = retrySeconds.first
        let parameters: JSONObject = [
            "everyone": .bool(true), "users": .array(users.sorted().map { .int(Int64($0)) }),
        ]
        while !Task.isCancelled {
            let reason: String
            do {
                let client = try await VarlinkAsyncClient.connect(path: socketPath)
                defer { client.close() }
                logger.info(
                    "prompt agent for the GeoClue agents of uids \(users.sorted())",
                    metadata: ["geoclue.locd-socket": "\(socketPath)"]
                )
                for try await reply in client.stream(AdminMethod.prompts.name, parameters) {
                    delay = retrySeconds.first
                    if let prompt = reply["prompt"] { await handlers.prompt(prompt) }
                    if let id = reply["withdrawn"]?.stringValue { await handlers.withdrawn(id) }
                    if reply["prompt"] == nil && reply["withdrawn"] == nil { counted(serial) }
                }
                reason = "locd ended the prompt stream"
            } catch is CancellationError {
                return
            } catch let error as VarlinkError where error.name == WireErrorName.permissionDenied.name {
                reason =
                    "locd refuses \(AdminMethod.prompts.name)(everyone: true): locd-geoclue needs locd's admin group "
                    + "(SupplementaryGroups= of its unit, admin-group in locd.toml)"
            } catch {
                reason = "the prompt stream failed: \(error)"
            }
            if Task.isCancelled || !isNewest(serial) { return }
            logger.warning("\(reason); opening it again in \(delay) s")
            await handlers.lost()
            try? await Task.sleep(for: .seconds(delay))
            delay = min(delay * 2, retrySeconds.most)
        }
    }

    /// Answers prompt `id` on a connection of its own; a prompt gone meanwhile (answered elsewhere, timed out) is
    /// logged and dropped.
    func answer(_ id: String, _ answer: AgentPrompt.Answer) async {
        var parameters: JSONObject = ["id": .string(id), "answer": .string(answer.answer)]
        if let accuracy = answer.accuracy { parameters["accuracy"] = .string(accuracy) }
        do {
            let client = try await VarlinkAsyncClient.connect(path: socketPath)
            defer { client.close() }
            try await client.call(AdminMethod.answerPrompt.name, parameters)
            logger.info(
                "prompt answered by a GeoClue agent",
                metadata: ["geoclue.prompt": "\(id)", "geoclue.answer": "\(answer.answer) \(answer.accuracy ?? "")"]
            )
        } catch {
            logger.notice("cannot answer prompt \(id): \(error)")
        }
    }
}
