// P14: a prompt nobody can answer does not hold its app.
extension LocationCore {
    /// Whether an open `Prompts` stream is offered the prompts of `key` (H7).
    func hasAgent(for key: AppKey) -> Bool {
        agents.contains { offers($0, key) }
    }

    /// Starts the wait of a shown prompt that no agent is offered, unless it is waiting already (P14).
    mutating func awaitAgentIfNone(_ id: PromptID) {
        guard let wait = configuration.agentWait, var prompt = prompts[id], prompt.raisedAt != nil,
            prompt.agentWaitEnds == nil, !hasAgent(for: AppKey(prompt.appID, user: prompt.user))
        else { return }
        let ends = now.adding(wait)
        prompt.agentWaitEnds = ends
        prompts[id] = prompt
        deadlines.insert(ends, .agentWait(id))
    }

    /// An agent is offered `id`: the prompt waits for nobody now, and a later departure starts a full wait again.
    mutating func agentArrived(for id: PromptID) {
        prompts[id]?.agentWaitEnds = nil
    }

    /// Agent streams closed: each shown prompt they leave with no agent starts its wait (P14). Prompts in id
    /// order, so that the same events give the same actions.
    mutating func agentsLeft() {
        guard configuration.agentWait != nil else { return }
        let shown = prompts.values.filter { $0.raisedAt != nil && $0.agentWaitEnds == nil }.map(\.id)
        for id in shown.sorted() { awaitAgentIfNone(id) }
    }

    /// The wait is over: a prompt still offered to nobody is dismissed as at `prompt-timeout` (P8), and the shell
    /// says what to start.
    mutating func agentWaitEnded(_ id: PromptID) {
        guard let prompt = prompts[id] else { return }
        prompts[id]?.agentWaitEnds = nil
        let key = AppKey(prompt.appID, user: prompt.user)
        guard !hasAgent(for: key) else { return }
        messages.append(.nobodyToAsk(key))
        apps[prompt.app].suppressed.insert(prompt.key)
        resolve(id, "unanswered")
        evaluatePrompts(prompt.app)
    }
}
