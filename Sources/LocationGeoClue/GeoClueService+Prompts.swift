import CSdBus
import JSON
import LocationClient

/// locd's prompts asked of GeoClue agents (SEMANTICS G11, G13–G15): which prompts, which agent, and the answer.
extension GeoClueService {
    /// The Prompts stream, made at the first agent.
    func promptLink() -> PromptLink {
        if let link = prompting { return link }
        let connection = self.connection
        // Weak: the service owns the link, and the link's task must not keep the service alive.
        let handlers = PromptLink.Handlers(
            prompt: { [weak self] value in
                guard let service = self else { return }
                await connection.perform { service.promptArrived(value) }
            },
            withdrawn: { [weak self] id in
                guard let service = self else { return }
                await connection.perform { service.promptWithdrawn(id) }
            },
            lost: { [weak self] in
                guard let service = self else { return }
                await connection.perform { service.promptsLost() }
            }
        )
        let link = PromptLink(socketPath: socketPath ?? DefaultSocket.path(), handlers: handlers, logger: logger)
        prompting = link
        return link
    }

    /// A prompt from locd: an authorization prompt is kept and asked of an agent; other kinds (Always upgrade,
    /// temporary full accuracy, Always reconfirmation) are left to locd's own agents (G15).
    ///
    /// It counts against the uid of a client starting its app, the first (lowest) of them with room: a user whose
    /// programs start many apps fills only its own share, and starting another user's app does not take that user's
    /// prompt from it (G14).
    func promptArrived(_ value: JSONValue) {
        guard let prompt = AgentPrompt(value), prompts[prompt.id] == nil else { return }
        let starting = Set(clients.values.filter { isStarting($0, for: prompt.appID) }.map(\.ownerUID))
        let candidates = starting.isEmpty ? [UInt32.max] : starting.sorted()
        guard prompts.count < limits.prompts,
            let uid = candidates.first(where: { promptsByUID[$0, default: 0] < limits.promptsPerUID })
        else {
            logger.warning(
                """
                prompts for GeoClue agents are at their bound (\(limits.prompts) in all, \(limits.promptsPerUID) per \
                uid): prompt \(prompt.id) for \(prompt.appID) is left to locd's other agents
                """
            )
            return
        }
        prompts[prompt.id] = PendingPrompt(prompt: prompt, uid: uid)
        promptsByUID[uid, default: 0] += 1
        ask(prompt.id)
    }

    /// Whether `client` waits for locd's decision on a `Start` as `appID`.
    private func isStarting(_ client: GeoClueClient, for appID: String) -> Bool {
        client.run != nil && !client.active && client.runApp == appID
    }

    /// Forgets a prompt: answered, withdrawn by locd.
    @discardableResult
    private func dropPrompt(_ id: String) -> PendingPrompt? {
        guard let pending = prompts.removeValue(forKey: id) else { return nil }
        promptsByUID.uncount(pending.uid)
        return pending
    }

    /// locd withdrew a prompt (answered elsewhere, timed out, no longer needed): the agent's call is cancelled.
    func promptWithdrawn(_ id: String) {
        guard let pending = dropPrompt(id), let asked = pending.askedOf else { return }
        cancelAgentCall(asked.cookie)
        agents[asked.agent]?.asking[asked.cookie] = nil
        askWaitingPrompts()
    }

    /// The stream ended: what it sent is gone; locd sends the prompts still pending when it opens again.
    func promptsLost() {
        for pending in prompts.values {
            guard let asked = pending.askedOf else { continue }
            cancelAgentCall(asked.cookie)
            agents[asked.agent]?.asking[asked.cookie] = nil
        }
        prompts = [:]
        promptsByUID = [:]
    }

    /// Asks the prompts no agent is being asked, where an agent may now answer them.
    func askWaitingPrompts() {
        for (id, pending) in prompts where pending.askedOf == nil { ask(id) }
    }

    /// Asks a prompt of the agent in charge of the uid of a GeoClue client that is starting for the prompt's app,
    /// as `AuthorizeApp(app id, level)`; with none, the prompt waits (for an agent, or locd's timeout).
    func ask(_ id: String) {
        guard let pending = prompts[id], pending.askedOf == nil else { return }
        let starting = clients.values.filter { isStarting($0, for: pending.prompt.appID) }
        for client in starting.sorted(by: { $0.path < $1.path }) {
            guard let agent = agentInCharge(of: client.ownerUID, excluding: pending.failed),
                agent.asking.count < limits.promptsPerAgent
            else { continue }
            let level = pending.prompt.requestedLevel(client: client.requestedAccuracy)
            let cookie = callAgent(
                agent,
                Self.agentInterface,
                "AuthorizeApp",
                as: .authorize(agent: agent.name, prompt: id),
                timeout: limits.authorizeSeconds
            ) { message in
                message.append(pending.prompt.appID)
                message.append(level)
            }
            guard let cookie else { continue }
            agent.asking[cookie] = id
            prompts[id]?.askedOf = (agent.name, cookie)
            logger.info(
                "prompt asked of agent \(agent.id)",
                metadata: [
                    "geoclue.prompt": "\(id)", "geoclue.app": "\(pending.prompt.appID)", "geoclue.level": "\(level)",
                ]
            )
            return
        }
    }

    /// An agent's reply to `AuthorizeApp`: its answer goes to locd; an error leaves the prompt to the uid's next
    /// agent, or to locd's other agents and its timeout.
    func authorized(_ id: String, by agent: String, _ reply: BusMessage) {
        guard prompts[id] != nil else { return }
        let authorized = reply.errorName == nil ? reply.readBool() : nil
        let level = authorized == nil ? nil : reply.readUInt32()
        guard let authorized, let level else {
            logger.notice(
                "agent gave no answer to prompt \(id): \(reply.errorName ?? "a reply that is not (bu)")",
                metadata: ["geoclue.peer": "\(agent)"]
            )
            prompts[id]?.askedOf = nil
            prompts[id]?.failed.insert(agent)
            ask(id)
            return
        }
        dropPrompt(id)
        let answer = AgentPrompt.answer(authorized: authorized, allowedLevel: level)
        let link = promptLink()
        Task { await link.answer(id, answer) }
        askWaitingPrompts()
    }
}
