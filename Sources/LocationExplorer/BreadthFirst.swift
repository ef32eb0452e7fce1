import LocationCore

/// One transition out of a state, as a worker thread found it.
struct Successor {
    var event: ModelEvent
    /// The first invariant the transition breaks, and what it saw.
    var violation: (invariant: Invariant, problem: String)?
    /// The state reached and its fingerprint, for deduplication; no state with a violation, or when the fingerprint
    /// was already known.
    var state: ModelState?
    var fingerprint: Fingerprint?
}

extension Explorer {
    /// Every transition out of `state` in event order, each checked; stops at the first that breaks a rule.
    ///
    /// A state reached whose fingerprint is in `known` (found in an earlier batch) is not returned, only its
    /// fingerprint: the worker drops it, so that the thread merging the batch neither copies nor frees it.
    func successors(of state: ModelState, known: Set<Fingerprint> = []) -> [Successor] {
        var transition = Transition(from: state)
        var found: [Successor] = []
        for event in state.enabledEvents {
            transition.take(event)
            if let violation = firstViolation(transition) {
                found.append(Successor(event: event, violation: violation))
                break
            }
            let fingerprint = transition.after.fingerprint(transition.readingAfter)
            let state = known.contains(fingerprint) ? nil : transition.after
            found.append(Successor(event: event, state: state, fingerprint: fingerprint))
        }
        return found
    }

    /// Checks every transition out of `state` and keeps nothing: the successors of the deepest level are never
    /// expanded. Returns how many were checked and the first that breaks a rule.
    func check(successorsOf state: ModelState) -> (transitions: Int, violation: (ModelEvent, Invariant, String)?) {
        var transition = Transition(from: state)
        var count = 0
        for event in state.enabledEvents {
            transition.take(event)
            count += 1
            if let (invariant, problem) = firstViolation(transition) { return (count, (event, invariant, problem)) }
        }
        return (count, nil)
    }
}

/// The breadth-first search: level by level from the empty world, each canonical state expanded once, every
/// transition checked on the real core.
///
/// Levels above the last two are kept whole as a frontier. The states of the last expanded level (depth − 1) are
/// not kept: each is generated from its parent, deduplicated, checked and expanded at once, and its successors
/// (the last level) are only checked. A level's states are expanded on ``Explorer/threads`` threads in batches,
/// and each batch is merged in the order a single thread would have produced it, so the states, the figures and
/// the counterexample do not depend on the threads or their timing.
///
/// The counterexample is a shortest one: every level is finished before the next is looked at, and in the fused
/// last pass a violation at depth − 1 wins over one at the full depth found earlier in the same pass.
struct BreadthFirst {
    let explorer: Explorer
    var report = ExplorationReport()
    var seen: Set<Fingerprint> = []
    /// Each kept state's parent and the event that reached it, for the counterexample's sequence.
    var parents: [(parent: Int32, event: ModelEvent?)] = [(-1, nil)]
    /// Parents a batch expands (``Explorer/batchSize``): by default enough to keep both threads busy between
    /// merges, few enough that the batch's successors (some 28 states each) take little memory.
    var batchSize: Int { explorer.batchSize }

    init(explorer: Explorer) { self.explorer = explorer }

    mutating func run(progress: (Int, Int) -> Void) -> ExplorationReport {
        let root = ModelState(size: explorer.size)
        let depth = explorer.size.depth
        seen = [root.fingerprint]
        var frontier: [(node: Int32, state: ModelState)] = [(0, root)]
        if depth == 1 {
            lastLevel(of: frontier)
        } else if depth > 1 {
            for level in 1..<(depth - 1) {
                guard let next = expand(frontier, to: level) else { return finished() }
                frontier = next
                report.depthReached = level
                progress(level, seen.count)
                if frontier.isEmpty { return finished() }
            }
            lastLevels(from: frontier, progress: progress)
        }
        return finished()
    }

    private mutating func finished() -> ExplorationReport {
        report.distinctStates = seen.count
        return report
    }

    /// The states of level `level`, new ones only, from the frontier of the level above; `nil` after a violation.
    private mutating func expand(
        _ frontier: [(node: Int32, state: ModelState)],
        to level: Int
    ) -> [(node: Int32, state: ModelState)]? {
        var next: [(node: Int32, state: ModelState)] = []
        for start in stride(from: 0, to: frontier.count, by: batchSize) {
            let batch = frontier[start..<min(start + batchSize, frontier.count)]
            let found = orderedMap(batch.count, threads: explorer.threads) { [explorer, seen] index in
                explorer.successors(of: batch[start + index].state, known: seen)
            }
            for (parent, successors) in zip(batch, found) {
                for successor in successors {
                    report.statesExplored += 1
                    if let violation = successor.violation {
                        fail(violation, events: path(to: parent.node) + [successor.event], depth: level)
                        return nil
                    }
                    guard let fingerprint = successor.fingerprint, seen.insert(fingerprint).inserted,
                        let state = successor.state
                    else { continue }
                    parents.append((parent.node, successor.event))
                    next.append((Int32(parents.count - 1), state))
                }
            }
        }
        return next
    }

    /// The last two levels from the frontier of depth − 2: each new state of depth − 1 is checked and expanded at
    /// once, its successors only checked. A violation at depth − 1 is reported at once; one at the full depth
    /// waits for the pass to end, as a shorter one may still come.
    private mutating func lastLevels(from frontier: [(node: Int32, state: ModelState)], progress: (Int, Int) -> Void) {
        let depth = explorer.size.depth
        var deeper: Counterexample?
        for start in stride(from: 0, to: frontier.count, by: batchSize) {
            let batch = frontier[start..<min(start + batchSize, frontier.count)]
            let found = orderedMap(batch.count, threads: explorer.threads) { [explorer, seen] index in
                explorer.successors(of: batch[start + index].state, known: seen)
            }
            var fresh: [(node: Int32, event: ModelEvent, state: ModelState)] = []
            for (parent, successors) in zip(batch, found) {
                for successor in successors {
                    report.statesExplored += 1
                    if let violation = successor.violation {
                        fail(violation, events: path(to: parent.node) + [successor.event], depth: depth - 1)
                        return
                    }
                    guard let fingerprint = successor.fingerprint, seen.insert(fingerprint).inserted,
                        let state = successor.state, deeper == nil
                    else { continue }
                    fresh.append((parent.node, successor.event, state))
                }
            }
            guard deeper == nil else { continue }
            deeper = checkLast(fresh)
        }
        progress(depth - 1, seen.count)
        report.depthReached = depth
        if let deeper { report.counterexample = deeper }
        progress(depth, seen.count)
    }

    /// Checks the successors of each state of depth − 1 in `fresh`; the first violation in their order, if any.
    private mutating func checkLast(_ fresh: [(node: Int32, event: ModelEvent, state: ModelState)]) -> Counterexample? {
        let checked = orderedMap(fresh.count, threads: explorer.threads, grain: 8) { [explorer] index in
            explorer.check(successorsOf: fresh[index].state)
        }
        for (state, result) in zip(fresh, checked) {
            report.statesExplored += result.transitions
            guard let (event, invariant, problem) = result.violation else { continue }
            return Counterexample(
                invariant: invariant.name,
                rules: invariant.rules,
                problem: problem,
                events: path(to: state.node) + [state.event, event]
            )
        }
        return nil
    }

    /// Depth 1: the empty world's successors, checked.
    private mutating func lastLevel(of frontier: [(node: Int32, state: ModelState)]) {
        let result = explorer.check(successorsOf: frontier[0].state)
        report.statesExplored += result.transitions
        report.depthReached = 1
        if let (event, invariant, problem) = result.violation { fail((invariant, problem), events: [event], depth: 1) }
    }

    private mutating func fail(_ violation: (invariant: Invariant, problem: String), events: [ModelEvent], depth: Int) {
        report.counterexample = Counterexample(
            invariant: violation.invariant.name,
            rules: violation.invariant.rules,
            problem: violation.problem,
            events: events
        )
        report.depthReached = depth
    }

    private func path(to node: Int32) -> [ModelEvent] {
        var events: [ModelEvent] = []
        var current = node
        while current >= 0 {
            if let event = parents[Int(current)].event { events.append(event) }
            current = parents[Int(current)].parent
        }
        return events.reversed()
    }
}
