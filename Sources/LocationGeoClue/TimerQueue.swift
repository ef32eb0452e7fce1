/// Work to run at given instants, kept in instant order, for the bus thread's timers.
///
/// Nearly every timer of the bridge has the same delay (a replaced Location object's 5 s; a peer's idle locd
/// connections set one more), so they come in instant order and an addition lands at the end; taking the due ones
/// and reading the next instant look at the front only. Under churn thousands are pending at once, and the bus
/// thread asks at every wake-up.
struct TimerQueue<Work> {
    private var entries: [(at: ContinuousClock.Instant, work: Work?)] = []
    /// Entries before it have run; they are dropped once they are half of the array.
    private var head = 0

    /// The instant of the first pending work.
    var next: ContinuousClock.Instant? { head < entries.count ? entries[head].at : nil }

    /// Adds `work` for `at`, after any work for the same instant.
    mutating func add(at: ContinuousClock.Instant, _ work: Work) {
        var low = head
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].at <= at { low = middle + 1 } else { high = middle }
        }
        entries.insert((at, work), at: low)
    }

    /// Removes the work due at `now` and returns it, in instant order.
    mutating func takeDue(at now: ContinuousClock.Instant) -> [Work] {
        var due: [Work] = []
        while head < entries.count, entries[head].at <= now {
            if let work = entries[head].work { due.append(work) }
            entries[head].work = nil
            head += 1
        }
        if head > 0, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return due
    }
}
