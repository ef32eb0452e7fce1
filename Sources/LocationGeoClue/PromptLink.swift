import JSON
import Logging
import Synchronization
import Varlink

/// locd-geoclue as one of locd's prompt agents: the `io.locd.Admin.Prompts` stream of every user's prompts, open
/// while at least one GeoClue agent is registered, and `AnswerPrompt` for the answers those agents give (SEMANTICS
/// G11, G13, H7).
///
/// The stream asks for every user's prompts (`everyone: true`): locd-geoclue hands each to the GeoClue agent of the
/// prompt's own user, so its plain stream, offered only its own uid's, would carry none of theirs. locd counts the
/// stream as one agent; closing it withdraws locd-geoclue cleanly, and locd's prompts then wait for another agent or
/// time out (P8). Both need locd's Admin privilege (I3): the unit's `SupplementaryGroups=locd`.
final class PromptLink: Sendable {
    /// What the stream tells, handed to the bus thread by the owner.
    struct Handlers: Sendable {
        var prompt: @Sendable (JSONValue) async -> Void
        var withdrawn: @Sendable (String) async -> Void
        /// The stream ended (locd restarted, or refused it): every prompt it sent is gone with it.
        var lost: @Sendable () async -> Void
    }

    private let socketPath: String
    private let handlers: Handlers
    private let logger: Logger
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// How long to wait before opening the stream again after locd ended it: doubled after each failure in a row
    /// (a refusal repeats until the configuration changes), up to the second value.
    private let retrySeconds: (first: Double, most: Double)

    init(socketPath: String, handlers: Handlers, logger: Logger, retrySeconds: (Double, Double) = (1, 60)) {
        self.socketPath = socketPath
        self.handlers = handlers
        self.logger = logger
        self.retrySeconds = retrySeconds
    }

    var isOpen: Bool { task.withLock { $0 != nil } }

    /// Opens the stream, and opens it again whenever locd ends it, until ``close()``.
    func open() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { await self.serve() }
        }
    }

    /// Closes the stream: locd no longer counts locd-geoclue as an agent.
    func close() {
        task.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    private func serve() async {
        var delay = retrySeconds.first
        while !Task.isCancelled {
            let reason: String
            do {
                let client = try await VarlinkAsyncClient.connect(path: socketPath)
                defer { client.close() }
                logger.info("prompt agent for GeoClue agents", metadata: ["geoclue.locd-socket": "\(socketPath)"])
                for try await reply in client.stream("io.locd.Admin.Prompts", ["everyone": .bool(true)]) {
                    delay = retrySeconds.first
                    if let prompt = reply["prompt"] { await handlers.prompt(prompt) }
                    if let id = reply["withdrawn"]?.stringValue { await handlers.withdrawn(id) }
                }
                reason = "locd ended the prompt stream"
            } catch is CancellationError {
                return
            } catch let error as VarlinkError where error.name == "org.varlink.service.PermissionDenied" {
                reason =
                    "locd refuses io.locd.Admin.Prompts(everyone: true): locd-geoclue needs locd's admin group "
                    + "(SupplementaryGroups= of its unit, admin-group in locd.toml)"
            } catch {
                reason = "the prompt stream failed: \(error)"
            }
            if Task.isCancelled { return }
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
            try await client.call("io.locd.Admin.AnswerPrompt", parameters)
            logger.info(
                "prompt answered by a GeoClue agent",
                metadata: ["geoclue.prompt": "\(id)", "geoclue.answer": "\(answer.answer) \(answer.accuracy ?? "")"]
            )
        } catch {
            logger.notice("cannot answer prompt \(id): \(error)")
        }
    }
}
