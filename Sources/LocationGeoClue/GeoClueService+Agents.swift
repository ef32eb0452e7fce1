import CSdBus
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// GeoClue agents as locd's prompt agents (SEMANTICS G11–G15): `AddAgent`, the agent's `MaxAccuracyLevel`, and each
/// authorization prompt of a starting GeoClue client asked as `AuthorizeApp` of its uid's agent.
extension GeoClueService {
    static let agentPath = "/org/freedesktop/GeoClue2/Agent"
    static let agentInterface = "org.freedesktop.GeoClue2.Agent"

    /// `AddAgent(id)`: answered once the agent's `GetAll` has (as GeoClue does); from then on it is asked the
    /// prompts of its uid's GeoClue apps.
    func addAgent(_ call: BusMessage) -> Int32 {
        guard let sender = call.sender, let id = call.readString() else {
            call.reply(.invalidArgs("AddAgent takes the agent's desktop id"))
            return 1
        }
        if let whitelist = agentWhitelist, !whitelist.ids.contains(id) {
            // G34: as GeoClue answers an agent its whitelist leaves out.
            call.reply(
                .accessDenied(
                    "\(id) not allowed to act as agent: add it to [agent] whitelist in \(whitelist.file) "
                        + "and restart locd-geoclue"
                )
            )
            return 1
        }
        if let whitelist = agentWhitelist, let refusal = agentRefusal(sender, claiming: id, whitelist) {
            // G34: the id is the caller's word; the program its process runs is what is checked.
            call.reply(.accessDenied(refusal))
            logger.notice("agent \(id) refused: \(refusal)", metadata: ["geoclue.peer": "\(sender)"])
            return 1
        }
        if let known = agents[sender] {
            known.id = id
            call.replyEmpty()
            // A new id may make it an agent that is asked, or GeoClue's demo agent that is not (G11).
            servePromptUsers()
            return 1
        }
        guard let uid = uid(of: sender) else {
            call.reply(.failed("locd-geoclue cannot learn the caller's uid from the bus: call AddAgent again"))
            return 1
        }
        let user = counted(uid)
        if agents.count >= limits.agents
            || agents.values.filter({ counted($0.uid) == user }).count >= limits.agentsPerUID
        {
            call.reply(
                .limitsExceeded(
                    "a uid may register \(limits.agentsPerUID) GeoClue agents at most "
                        + "(\(limits.agents) in all; this is \(countedName(uid))): end an older agent first"
                )
            )
            return 1
        }
        nextAgentSerial += 1
        let agent = GeoClueAgent(name: sender, id: id, uid: uid, serial: nextAgentSerial)
        agents[sender] = agent
        agent.pendingAdd = call.retained()
        var slot: OpaquePointer?
        let match =
            "type='signal',sender='\(sender)',path='\(Self.agentPath)',"
            + "interface='\(Self.propertiesInterface)',member='PropertiesChanged',arg0='\(Self.agentInterface)'"
        if sd_bus_add_match(bus, &slot, match, Self.agentChangedCallback, userdata) >= 0, let slot {
            agent.slots.append(slot)
        }
        let sent = callAgent(agent, Self.propertiesInterface, "GetAll", as: .properties(agent: sender)) { message in
            message.append(Self.agentInterface)
        }
        if sent == nil { refuseAgent(agent, "locd-geoclue could not ask the agent its properties: see its log") }
        return 1
    }

    /// Sends a method call to an agent's `/org/freedesktop/GeoClue2/Agent`; its reply comes to ``agentReplied(_:)``.
    /// Returns the call's cookie, `nil` when sd-bus refused to send it.
    func callAgent(
        _ agent: GeoClueAgent,
        _ interface: String,
        _ member: String,
        as kind: AgentCall,
        timeout: Double = 25,
        arguments: (BusMessage) -> Void
    ) -> UInt64? {
        var made: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &made, agent.name, Self.agentPath, interface, member) >= 0,
            let message = made
        else { return nil }
        defer { sd_bus_message_unref(message) }
        arguments(BusMessage(raw: message))
        var slot: OpaquePointer?
        let result = sd_bus_call_async(bus, &slot, message, Self.agentReplyCallback, userdata, UInt64(timeout * 1e6))
        var cookie: UInt64 = 0
        guard result >= 0, sd_bus_message_get_cookie(message, &cookie) >= 0 else {
            logger.warning("cannot call \(member) of agent \(agent.id): \(BusFailure(doing: "call", code: result))")
            if let slot { sd_bus_slot_unref(slot) }
            return nil
        }
        agentCalls[cookie] = PendingAgentCall(kind: kind, slot: slot)
        return cookie
    }

    /// The reply of a call to an agent: its properties, or its answer to `AuthorizeApp`.
    func agentReplied(_ reply: BusMessage) {
        var cookie: UInt64 = 0
        guard sd_bus_message_get_reply_cookie(reply.raw, &cookie) >= 0,
            let call = agentCalls.removeValue(forKey: cookie)
        else { return }
        if let slot = call.slot { sd_bus_slot_unref(slot) }
        switch call.kind {
        case .properties(let name):
            guard let agent = agents[name] else { return }
            if let error = reply.errorName {
                refuseAgent(agent, "the agent must export \(Self.agentInterface) at \(Self.agentPath) (\(error))")
            } else {
                setMaxAccuracy(of: agent, reply.readUInt32Properties()?["MaxAccuracyLevel"] ?? AccuracyLevel.exact)
            }
        case .authorize(let name, let promptID):
            agents[name]?.asking[cookie] = nil
            authorized(promptID, by: name, reply)
        }
    }

    /// `AddAgent` fails: the agent is forgotten and its call answered `Failed` with `reason`.
    private func refuseAgent(_ agent: GeoClueAgent, _ reason: String) {
        agent.pendingAdd?.reply(.failed(reason))
        agent.pendingAdd?.release()
        agent.pendingAdd = nil
        forget(agent)
        logger.notice("agent \(agent.id) refused: \(reason)", metadata: ["geoclue.peer": "\(agent.name)"])
    }

    /// The agent's `MaxAccuracyLevel`, first from its `GetAll`, then from its `PropertiesChanged`.
    func setMaxAccuracy(of agent: GeoClueAgent, _ level: UInt32) {
        let first = agent.maxAccuracy == nil
        guard first || agent.maxAccuracy != level else { return }
        agent.maxAccuracy = level
        if let call = agent.pendingAdd {
            call.replyEmpty()
            call.release()
            agent.pendingAdd = nil
        }
        logger.info(
            first ? "agent \(agent.id) registered" : "agent \(agent.id) changed its accuracy",
            metadata: [
                "geoclue.peer": "\(agent.name)", "geoclue.uid": "\(agent.uid)", "geoclue.max-accuracy": "\(level)",
            ]
        )
        emitChanged(Self.managerPath, Self.managerInterface, ["AvailableAccuracyLevel"])
        followAgentLevel(of: agent.uid)
        if first { servePromptUsers() }
        askWaitingPrompts()
    }

    /// The uid's clients follow its agent's `MaxAccuracyLevel` (G12): at 0 they stop, as the person turned location
    /// off in the desktop; above it, those that were active then start again by themselves, as GeoClue restarts the
    /// clients its agent stopped, and every running one is served what the level allows.
    func followAgentLevel(of uid: UInt32) {
        guard agentInCharge(of: uid)?.maxAccuracy != AccuracyLevel.none else { return disableClients(of: uid) }
        for client in clients.values where client.ownerUID == uid && client.stoppedByAgent && client.run == nil {
            client.stoppedByAgent = false
            guard let appID = client.runApp, let process = peers[client.owner]?.process else { continue }
            logger.info("client started again: location is on again", metadata: ["geoclue.client": "\(client.path)"])
            launch(client, as: appID, process: process)
        }
        refreshAccuracy(of: uid)
    }

    /// `MaxAccuracyLevel` 0: the uid's clients stop; the active ones are marked to start again after (G12).
    private func disableClients(of uid: UInt32) {
        for client in clients.values where client.run != nil && client.ownerUID == uid {
            client.stoppedByAgent = client.active
            halt(client, endingSession: true, reason: StartRefusal.geolocationDisabled(uid).message)
        }
    }

    /// The uid's running clients are served what its agent allows now: approximate locations below street (G12).
    func refreshAccuracy(of uid: UInt32) {
        for client in clients.values where client.ownerUID == uid {
            client.run?.changeAccuracy(to: servedAccuracy(client))
        }
    }

    /// The agent that answers for `uid`: the latest registered whose properties are known, apart from `excluded`;
    /// with `asking`, only one that shows prompts (G11: never GeoClue's demo agent).
    func agentInCharge(
        of uid: UInt32,
        excluding excluded: Set<String> = [],
        asking: Bool = false
    ) -> GeoClueAgent? {
        agents.values.filter {
            $0.uid == uid && $0.maxAccuracy != nil && !excluded.contains($0.name) && (!asking || $0.showsPrompts)
        }
        .max { $0.serial < $1.serial }
    }

    /// What the Manager's `AvailableAccuracyLevel` tells `peer`: its uid's agent's `MaxAccuracyLevel`, else exact.
    func availableAccuracy(for peer: String?) -> UInt32 {
        guard let peer, let uid = uid(of: peer), let level = agentInCharge(of: uid)?.maxAccuracy else {
            return AccuracyLevel.exact
        }
        return min(level, AccuracyLevel.exact)
    }

    /// The agent left the bus, or its `AddAgent` failed: it is asked nothing more; the prompts it was asked go to
    /// its uid's next agent, or wait in locd for another agent or the prompt timeout (P8).
    func forget(_ agent: GeoClueAgent) {
        guard agents.removeValue(forKey: agent.name) != nil else { return }
        agent.pendingAdd?.release()
        agent.pendingAdd = nil
        for slot in agent.slots { sd_bus_slot_unref(slot) }
        agent.slots = []
        for (cookie, promptID) in agent.asking {
            cancelAgentCall(cookie)
            prompts[promptID]?.askedOf = nil
            prompts[promptID]?.failed.insert(agent.name)
        }
        agent.asking = [:]
        emitChanged(Self.managerPath, Self.managerInterface, ["AvailableAccuracyLevel"])
        followAgentLevel(of: agent.uid)
        servePromptUsers()
        askWaitingPrompts()
    }

    /// The users whose prompts locd-geoclue can have answered: those with a registered agent that is asked (whose
    /// properties are known, not GeoClue's demo agent, G11).
    var promptUsers: Set<UInt32> {
        Set(agents.values.lazy.filter { $0.showsPrompts && $0.maxAccuracy != nil }.map(\.uid))
    }

    /// G11, P14: the Prompts stream is held for the users whose agents can be asked, and locd counts it as an agent
    /// of theirs alone; with none it is closed. Prompts of users no longer among them are forgotten: no agent of
    /// theirs is left to ask, and the new stream sends them again when one comes.
    func servePromptUsers() {
        let users = promptUsers
        guard prompting != nil || !users.isEmpty else { return }
        promptLink().serve(users: users)
        if users.isEmpty {
            promptsLost()
        } else {
            for (id, pending) in prompts where !users.contains(pending.prompt.user) { promptWithdrawn(id) }
        }
    }

    func cancelAgentCall(_ cookie: UInt64) {
        if let slot = agentCalls.removeValue(forKey: cookie)?.slot { sd_bus_slot_unref(slot) }
    }

    /// The uid of a peer, asked of the bus once and kept while the peer is on it.
    func uid(of peer: String) -> UInt32? {
        if let uid = uids[peer] { return uid }
        var creds: OpaquePointer?
        guard sd_bus_get_name_creds(bus, peer, CSDBUS_CREDS_UID, &creds) >= 0, let creds else { return nil }
        defer { sd_bus_creds_unref(creds) }
        var uid: uid_t = 0
        guard sd_bus_creds_get_uid(creds, &uid) >= 0 || sd_bus_creds_get_euid(creds, &uid) >= 0 else { return nil }
        uids[peer] = uid
        return uid
    }
}

/// A call locd-geoclue made to an agent, waiting for its reply.
struct PendingAgentCall {
    let kind: AgentCall
    let slot: OpaquePointer?
}

/// What a call to an agent asked.
enum AgentCall {
    case properties(agent: String)
    case authorize(agent: String, prompt: String)
}
