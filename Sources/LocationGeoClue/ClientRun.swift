import LocationClient
import Synchronization

/// The asynchronous side of one `Start` of a client: the task that talks to locd, whether stopping it ends
/// the locd session (`Stop`, `DeleteClient`) or leaves it to linger (the peer left the bus, SEMANTICS L3), and the
/// accuracy its updates are asked with, which may change while it runs (G12).
///
/// A stop that ends the session, once the run has one, ends it first: its updates stream, bound to it (U18), then
/// ends with locd's final reply and leaves its connection to the next run. The caller cancels the run with
/// ``cancel()`` once ``endGrace`` has passed, in case it has not finished by then.
final class ClientRun: Sendable {
    private let state: Mutex<State>

    private struct State {
        var task: Task<Void, Never>?
        var endsSession = true
        var stopped = false
        var accuracy: LocationUpdate.DesiredAccuracy?
        /// The live-updates stream in force, cancelled when the accuracy changes.
        var updates: Task<Void, any Error>?
        /// Ends the run's locd session, once it has one.
        var endSession: (@Sendable () async -> Void)?
        /// Fixes handed to the bus thread that it has not delivered yet.
        var fixesInFlight = 0
    }

    /// How many fixes a run hands to the bus thread without waiting for their delivery; past it, the run waits for
    /// each, so fixes queue at most in the stream's bounded buffer.
    static let fixesHandedOver = 4

    /// - Parameter accuracy: `nil` for what the grant allows, `.reduced` for the grid cell.
    init(accuracy: LocationUpdate.DesiredAccuracy?) {
        state = Mutex(State(accuracy: accuracy))
    }

    /// Starts `body` once `previous` (the run of an earlier `Start`) has finished.
    func start(after previous: ClientRun?, _ body: @escaping @Sendable (ClientRun) async -> Void) {
        let task = Task {
            await previous?.finished()
            await body(self)
        }
        state.withLock { $0.task = task }
    }

    /// How long after a stop that ends the session the run may take to finish before ``cancel()`` cuts it: the bound
    /// stream's final reply comes on its own connection, just after locd's reply to the session's end.
    static let endGrace = 2.0

    /// Stops the run; `endingSession` says whether the locd session is to end or linger. A run whose session is to
    /// end and that has one ends it; any other is cancelled at once.
    func stop(endingSession: Bool) {
        let (task, end) = state.withLock { state in
            state.endsSession = endingSession
            state.stopped = true
            return (state.task, endingSession ? state.endSession : nil)
        }
        guard let end else { return task?.cancel() ?? () }
        Task { await end() }
    }

    /// Cancels the run if it has not finished.
    func cancel() {
        state.withLock { $0.task }?.cancel()
    }

    /// Registers how to end the run's session, for a stop that ends it (``stop(endingSession:)``); a run stopped
    /// already was cancelled.
    func sessionEnds(by end: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            if !state.stopped { state.endSession = end }
        }
    }

    /// Whether another fix may go to the bus thread without waiting; if so, it counts as in flight until
    /// ``fixDelivered()``.
    func handOverFix() -> Bool {
        state.withLock { state in
            guard state.fixesInFlight < Self.fixesHandedOver else { return false }
            state.fixesInFlight += 1
            return true
        }
    }

    /// A fix handed over by ``handOverFix()`` was delivered.
    func fixDelivered() {
        state.withLock { $0.fixesInFlight -= 1 }
    }

    var endsSession: Bool { state.withLock { $0.endsSession } }
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Asks the updates with `accuracy` from now on: a stream of another accuracy is ended and opened again.
    func changeAccuracy(to accuracy: LocationUpdate.DesiredAccuracy?) {
        let ended = state.withLock { state -> Task<Void, any Error>? in
            guard state.accuracy != accuracy else { return nil }
            state.accuracy = accuracy
            return state.updates
        }
        ended?.cancel()
    }

    /// Runs `updates` with the accuracy in force, until it returns or throws; returns `true` when a change of
    /// accuracy ended it, so that the caller runs it again.
    func streaming(
        _ updates: @escaping @Sendable (LocationUpdate.DesiredAccuracy?) async throws -> Void
    ) async throws -> Bool {
        let accuracy = state.withLock { $0.accuracy }
        let task = Task { try await updates(accuracy) }
        let changed = state.withLock { state in
            state.updates = task
            return state.accuracy != accuracy
        }
        if changed { task.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
            return false
        } catch is CancellationError where !Task.isCancelled && state.withLock({ $0.accuracy != accuracy }) {
            return true
        }
    }

    /// Returns once the task has finished.
    func finished() async {
        await state.withLock { $0.task }?.value
    }
}
