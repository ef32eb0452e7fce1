/// What a deadline belongs to; the owner's own field says whether the deadline still stands.
///
/// An app is named by its handle in ``AppTable``. A session is named by its id only, which this epoch's
/// sessions resolve without hashing: a slot as well would make every entry of the heap larger.
enum DeadlineKey: Hashable, Sendable {
    case lingering(SessionID)
    case backgroundGrace(Int)
    case relaunchWindow(Int)
    case restartWindow(Int)
    case promptTimeout(PromptID)
    /// P14: the shown prompt has had no agent to be offered to for `agent-wait`.
    case agentWait(PromptID)
    /// P12: the app's background use under Always reaches `always-reconfirm` then.
    case alwaysReconfirm(Int)
    /// D10: the fixes have stayed put for 60 s by then.
    case stationary
}

/// A binary min-heap of deadlines with lazy deletion: an entry whose owner moved or dropped its
/// deadline is skipped when it reaches the top, so re-arming is O(log n) and cancelling is free.
///
/// The heap itself holds 16-byte nodes (the instant and the index of its key in a side pool), four to
/// a cache line: with 100k lingering sessions a wake-up's sift-down touches half the memory it would
/// if every node carried its key.
struct DeadlineHeap {
    struct Entry {
        var at: Instant
        var key: DeadlineKey
    }

    private struct Node {
        var at: Int64
        var key: Int
    }

    private var nodes: [Node] = []
    private var keys: [DeadlineKey] = []
    private var freeKeys: [Int] = []

    var isEmpty: Bool { nodes.isEmpty }
    var top: Entry? { nodes.first.map { Entry(at: Instant(nanoseconds: $0.at), key: keys[$0.key]) } }

    mutating func insert(_ at: Instant, _ key: DeadlineKey) {
        let index: Int
        if let free = freeKeys.popLast() {
            index = free
            keys[index] = key
        } else {
            index = keys.count
            keys.append(key)
        }
        nodes.append(Node(at: at.nanoseconds, key: index))
        var child = nodes.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard nodes[child].at < nodes[parent].at else { break }
            nodes.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func popTop() -> Entry? {
        guard let first = nodes.first else { return nil }
        let entry = Entry(at: Instant(nanoseconds: first.at), key: keys[first.key])
        freeKeys.append(first.key)
        let last = nodes.removeLast()
        guard !nodes.isEmpty else { return entry }
        nodes[0] = last
        var parent = 0
        let count = nodes.count
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < count && nodes[left].at < nodes[smallest].at { smallest = left }
            if right < count && nodes[right].at < nodes[smallest].at { smallest = right }
            guard smallest != parent else { break }
            nodes.swapAt(parent, smallest)
            parent = smallest
        }
        return entry
    }
}
