import Varlink

/// The loop-bound parts the daemon runs.
final class Running {
    let manager: SessionManager
    let server: VarlinkServer
    let provider: ProviderSupervisor

    init(manager: SessionManager, server: VarlinkServer, provider: ProviderSupervisor) {
        self.manager = manager
        self.server = server
        self.provider = provider
    }
}
