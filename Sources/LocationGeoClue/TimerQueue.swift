/// Work to run at given instants, for the bus thread's timers: a binary min-heap by instant, work for the same
/// instant in the order it was added.
///
/// The bridge's timers have several delays: a replaced Location object's 5 s, a peer's idle locd connections, and a
/// `Start`'s 20 s bound (G17), which most `Start`s outlive unneeded. Under churn tens of thousands are pending at
/// once, so an addition must not shift the ones after it (a sorted array did, and the 5 s timers of each cycle moved
/// every 20 s one after them); adding and taking cost a logarithm of the count, and the next instant is the root.
struct TimerQueue<Work> {
    private struct Entry {
        let at: ContinuousClock.Instant
        /// The order of addition, which breaks ties between equal instants.
        let order: UInt64
        let work: Work

        func precedes(_ other: Entry) -> Bool {
            at < other.at || (at == other.at && order < other.order)
        }
    }

    private var heap: [Entry] = []
    private var added: UInt64 = 0

    /// The instant of the first pending work.
    var next: ContinuousClock.Instant? { heap.first?.at }

    /// How much work is pending.
    var count: Int { heap.count }

    /// Adds `work` for `at`, after any work for the same instant.
    mutating func add(at: ContinuousClock.Instant, _ work: Work) {
        heap.append(Entry(at: at, order: added, work: work))
        added &+= 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the work due at `now` and returns it, in instant order.
    mutating func takeDue(at now: ContinuousClock.Instant) -> [Work] {
        var due: [Work] = []
        while let first = heap.first, first.at <= now {
            due.append(first.work)
            removeFirst()
        }
        return due
    }

    private mutating func removeFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let child = right < heap.count && heap[right].precedes(heap[left]) ? right : left
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }
}
