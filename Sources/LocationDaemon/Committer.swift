import Dispatch
import LocationCore
import NIOCore

/// Commits the daemon's writes on a thread of its own, one batch at a time, in the order they are handed
/// in (R10).
///
/// A commit blocks for the disk (and for a lock another process holds, up to the store's busy timeout); on
/// the event loop that would stall every client, even those whose calls write nothing. Here it stalls only
/// the replies that wait for it. The store's own writer serializes too; this queue keeps the order of the
/// batches and keeps the loop out of it.
final class Committer: Sendable {
    private let store: any StateStore
    private let queue = DispatchQueue(label: "locd.committer")

    init(store: any StateStore) {
        self.store = store
    }

    /// Applies `writes` in one transaction off the loop; the future completes on `eventLoop` once they are
    /// stored (durable when one is a decision, R1), or fails with the store's error.
    func commit(_ writes: [Persist], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        queue.async { [store] in
            do {
                try store.apply(writes)
                promise.succeed(())
            } catch {
                promise.fail(error)
            }
        }
        return promise.futureResult
    }
}
