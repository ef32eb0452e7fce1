import ProcessIdentity

/// G34: a whitelisted GeoClue agent is verified by the program its process runs, not by the id it announces.
extension GeoClueService {
    /// `nil` when the peer `sender`'s process (proven as I14 proves a client's: the bus's pidfd, else a pid checked
    /// against the connection) runs a program `whitelist` names for `id`; else the message `AddAgent` answers
    /// `AccessDenied` with.
    func agentRefusal(_ sender: String, claiming id: String, _ whitelist: AgentWhitelist) -> String? {
        let programs = whitelist.resolvedExecutables[id] ?? []
        let written = (whitelist.executables[id] ?? []).joined(separator: ", ")
        guard !programs.isEmpty else {
            return "\(id) not allowed to act as agent: no program of \(id) is installed where locd-geoclue looks"
                + (written.isEmpty ? "" : " (\(written))")
                + ", so the caller cannot be checked: install it there, or start locd-geoclue with "
                + "--agent-executable \(id)=PATH naming the agent's program"
        }
        let process: PeerProcess
        do {
            process = try PeerProcess.of(sender, on: bus, connectedBy: appearedAt[sender] ?? unrecordedBy)
        } catch {
            return error.message
        }
        let facts = ProcessFacts()
        let executable = facts.executable(of: process.pid)
        // Read between the pidfd's opening and this: if it still names the pid, the read was of its process.
        guard let executable, facts.pid(ofPidfd: process.pidfd) == process.pid else {
            return "the process that opened the connection \(sender) has gone: register from the agent's own process"
        }
        guard programs.contains(executable) else {
            return "\(id) not allowed to act as agent: the caller runs \(executable), which is not \(id)'s program "
                + "(\(written)); an agent of another program needs its own id in [agent] whitelist of "
                + "\(whitelist.file) and locd-geoclue's --agent-executable ID=PATH"
        }
        return nil
    }
}
