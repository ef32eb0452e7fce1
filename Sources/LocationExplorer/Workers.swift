import Dispatch
import Synchronization

/// Runs `body` for every index below `count` on `threads` threads and returns the results in index order, so
/// that what a caller does with them never depends on which thread took which index or when.
///
/// The threads take runs of `grain` indices from a shared counter: a state with many successors does not hold up
/// the other thread, and neighbouring indices (siblings, which share most of their storage with their parent) go
/// to the same thread, so the two seldom retain and release the same objects at once. `body` only reads what it shares: the explorer's states are plain values (the core holds no
/// class), so two threads may read and copy the same state at once, each mutating only its own copies.
func orderedMap<Result>(_ count: Int, threads: Int, grain: Int = 1, _ body: (Int) -> Result) -> [Result] {
    guard threads > 1, count > 1 else { return (0..<count).map(body) }
    let slots = Slots<Result>(count)
    let next = Atomic<Int>(0)
    withoutActuallyEscaping(body) { body in
        let shared = UncheckedBox(body)
        DispatchQueue.concurrentPerform(iterations: min(threads, count)) { _ in
            while true {
                let first = next.wrappingAdd(grain, ordering: .relaxed).oldValue
                guard first < count else { return }
                for index in first..<min(first + grain, count) { slots.store(shared.value(index), at: index) }
            }
        }
    }
    return slots.collect()
}

/// A value handed to the worker threads; each thread only reads it.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// One result slot per index, each written by exactly one thread before `concurrentPerform` returns.
private final class Slots<Result>: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<Result?>

    init(_ count: Int) {
        buffer = .allocate(capacity: count)
        buffer.initialize(repeating: nil)
    }

    func store(_ result: Result, at index: Int) { buffer[index] = result }

    /// The results in index order; every index was stored.
    func collect() -> [Result] { buffer.map { $0! } }

    deinit {
        buffer.deinitialize()
        buffer.deallocate()
    }
}
