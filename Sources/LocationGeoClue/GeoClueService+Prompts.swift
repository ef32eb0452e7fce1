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

    /// A prompt from locd, of any user's app: an authorization prompt is kept and asked of its user's agent; other
    /// kinds (Always upgrade, temporary full accuracy, Always reconfirmation) are left to locd's own agents (G15).
    ///
    /// It counts against its user while a client of that user starts its app, else against one shared count: a user
    /// whose programs start many apps fills only its own share, and no other user's programs take it (G14).
    ///
    /// A prompt already kept, or answered by an agent already, is not kept again: a new stream (a new set of users)
    /// sends the pending prompts again, and no agent is asked one prompt twice (G11). Nor is one of a user with no
    /// agent to ask, which an older stream may still send.
    func promptArrived(_ value: JSONValue) {
        guard let prompt = AgentPrompt(value), prompts[prompt.id] == nil, !answeredPrompts.contains(prompt.id),
            promptUsers.contains(prompt.user)
        else { return }
        let uid = clients.values.contains { isStarting($0, for: prompt) } ? counted(prompt.user) : UInt32.max
        guard prompts.count < limits.prompts, promptsByUID[uid, default: 0] < limits.promptsPerUID else {
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
        logger.debug("prompt \(prompt.id) of \(prompt.appID) kept for the GeoClue agent of uid \(prompt.user)")
        ask(prompt.id)
    }

    /// Whether `client` waits for locd's decision on a `Start` that raised `prompt`: a `Start` of the prompt's app
    /// by a client of the prompt's user (H7).
    private func isStarting(_ client: GeoClueClient, for prompt: AgentPrompt) -> Bool {
        client.run != nil && !client.active && client.runApp == prompt.appID && client.ownerUID == prompt.user
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

    /// Asks a prompt of the agent in charge of the prompt's user, while a GeoClue client of that user is starting
    /// for the prompt's app, as `AuthorizeApp(app id, level)`; otherwise the prompt waits (for an agent, or locd's
    /// timeout). No other user's agent is ever asked it: its answer is a decision for the user's app alone (H7).
    func ask(_ id: String) {
        guard let pending = prompts[id], pending.askedOf == nil,
            let client = clients.values.filter({ isStarting($0, for: pending.prompt) }).min(by: { $0.path < $1.path }),
            let agent = agentInCharge(of: pending.prompt.user, excluding: pending.failed, asking: true),
            agent.asking.count < limits.promptsPerAgent
        else { return }
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
        guard let cookie else { return }
        agent.asking[cookie] = id
        prompts[id]?.askedOf = (agent.name, cookie)
        logger.info(
            "prompt asked of agent \(agent.id)",
            metadata: [
                "geoclue.prompt": "\(id)", "geoclue.app": "\(pending.prompt.appID)",
                "geoclue.uid": "\(pending.prompt.user)", "geoclue.level": "\(level)",
            ]
        )
    }

    /// An agent's reply to `AuthorizeApp`: its answer goes to locd, for the prompt's own user's app (the prompt id
    /// names it); an error leaves the prompt to the user's next agent, or to locd's other agents and its timeout.
    func authorized(_ id: String, by agent: String, _ reply: BusMessage) {
        guard let pending = prompts[id] else { return }
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
        answeredPrompts.append(id)
        if answeredPrompts.count > limits.prompts { answeredPrompts.removeFirst() }
        let answer = AgentPrompt.answer(
            authorized: authorized,
            allowedLevel: level,
            always: pending.prompt.offersAlways
        )
        let link = promptLink()
        Task { await link.answer(id, answer) }
        askWaitingPrompts()
    }
}
