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
    /// Runs one commit after the other, off the loop: a serial queue of the committer's own.
    private let run: @Sendable (@escaping @Sendable () -> Void) -> Void

    convenience init(store: any StateStore) {
        let queue = DispatchQueue(label: "locd.committer")
        self.init(store: store) { queue.async(execute: $0) }
    }

    /// A committer whose commits `run` carries out, one after the other in the order it is handed them:
    /// tests run them by hand, on the thread of an `EmbeddedEventLoop`.
    init(store: any StateStore, run: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.store = store
        self.run = run
    }

    /// Applies `writes` in one transaction off the loop; the future completes on `eventLoop` once they are
    /// stored (durable when one is a decision, R1), or fails with the store's error.
    func commit(_ writes: [Persist], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        run { [store] in
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
