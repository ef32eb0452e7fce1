import Synchronization

/// The asynchronous side of one `Start` of a client: the task that talks to locd, and whether stopping it ends
/// the locd session (`Stop`, `DeleteClient`) or leaves it to linger (the peer left the bus, SEMANTICS L3).
final class ClientRun: Sendable {
    private let state = Mutex(State())

    private struct State {
        var task: Task<Void, Never>?
        var endsSession = true
        var stopped = false
    }

    /// Starts `body` once `previous` (the run of an earlier `Start`) has finished.
    func start(after previous: ClientRun?, _ body: @escaping @Sendable (ClientRun) async -> Void) {
        let task = Task {
            await previous?.finished()
            await body(self)
        }
        state.withLock { $0.task = task }
    }

    /// Cancels the task; `endingSession` says whether the locd session is to end or linger.
    func stop(endingSession: Bool) {
        let task = state.withLock { state in
            state.endsSession = endingSession
            state.stopped = true
            return state.task
        }
        task?.cancel()
    }

    var endsSession: Bool { state.withLock { $0.endsSession } }
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Returns once the task has finished.
    func finished() async {
        await state.withLock { $0.task }?.value
    }
}
