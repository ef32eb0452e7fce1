/// What a deadline belongs to; the owner's own field says whether the deadline still stands.
///
/// A session is named by its slot in ``SessionTable`` and its id (the slot may go to another session),
/// an app by its handle in ``AppTable``.
enum DeadlineKey: Hashable, Sendable {
    case lingering(slot: Int, SessionID)
    case backgroundGrace(Int)
    case relaunchWindow(Int)
    case restartWindow(Int)
    case promptTimeout(PromptID)
}

/// A binary min-heap of deadlines with lazy deletion: an entry whose owner moved or dropped its
/// deadline is skipped when it reaches the top, so re-arming is O(log n) and cancelling is free.
struct DeadlineHeap {
    struct Entry {
        var at: Instant
        var key: DeadlineKey
    }

    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var top: Entry? { entries.first }

    mutating func insert(_ at: Instant, _ key: DeadlineKey) {
        entries.append(Entry(at: at, key: key))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].at < entries[parent].at else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func popTop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        let first = entries[0]
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first }
        entries[0] = last
        var parent = 0
        let count = entries.count
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < count && entries[left].at < entries[smallest].at { smallest = left }
            if right < count && entries[right].at < entries[smallest].at { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}
