/// One app's session slots (``SessionTable``) in creation order.
///
/// Appending is at the end; removing is cheap at either end, which is where sessions usually end: a
/// churning client invalidates the session it just created, and lingering sessions expire oldest first.
/// Removing the oldest advances a start offset instead of shifting the whole list.
struct SessionSlots: RandomAccessCollection {
    private var storage: [Int] = []
    private var head = 0

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count - head }

    subscript(position: Int) -> Int { storage[head + position] }

    mutating func append(_ slot: Int) { storage.append(slot) }

    /// Removes a slot the list holds (each slot at most once).
    mutating func remove(_ slot: Int) {
        guard head < storage.count else { return }
        if storage[storage.count - 1] == slot {
            storage.removeLast()
        } else if storage[head] == slot {
            head += 1
        } else if let position = storage[head...].firstIndex(of: slot) {
            storage.remove(at: position)
        }
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 16 && head * 2 >= storage.count {
            // Drop the skipped prefix once it is half the storage: amortised O(1) per removal.
            storage.removeFirst(head)
            head = 0
        }
    }
}
