import LocationCore

/// What broke: the invariant, what it saw, and the shortest event sequence from the empty world that shows it.
package struct Counterexample: Sendable, CustomStringConvertible {
    package var invariant: String
    package var rules: [String]
    package var problem: String
    package var events: [ModelEvent]

    package var description: String {
        var lines = ["\(invariant) (\(rules.joined(separator: ", "))) fails after \(events.count) events:"]
        for (index, event) in events.enumerated() { lines.append("  \(index + 1). \(event)") }
        lines.append("  → \(problem)")
        return lines.joined(separator: "\n")
    }
}

/// The figures of one exploration.
package struct ExplorationReport: Sendable {
    /// Transitions taken: every enabled event of every distinct state above the depth bound.
    package var statesExplored = 0
    /// Distinct states below the depth bound; the states the last level reaches are checked, not deduplicated.
    package var distinctStates = 0
    package var depthReached = 0
    package var counterexample: Counterexample?
}

/// Breadth-first exploration of every event sequence up to a depth, one visit per canonical state.
package struct Explorer: Sendable {
    package let size: ExplorerSize
    package let invariants: [Invariant]
    /// Threads that expand a level's states; the result does not depend on it (``orderedMap(_:threads:grain:_:)``).
    package let threads: Int
    /// States expanded between two merges (``BreadthFirst``); the states found and the counterexample do not
    /// depend on it.
    package let batchSize: Int

    package init(size: ExplorerSize, invariants: [Invariant] = Invariant.all, threads: Int = 1, batchSize: Int = 256) {
        self.size = size
        self.invariants = invariants
        self.threads = max(1, threads)
        self.batchSize = max(1, batchSize)
    }

    /// Explores level by level and reports a shortest violation, if there is one (``BreadthFirst``).
    /// `progress` is told each level's depth and the distinct states so far.
    package func explore(progress: (Int, Int) -> Void = { _, _ in }) -> ExplorationReport {
        var search = BreadthFirst(explorer: self)
        return search.run(progress: progress)
    }

    /// Runs `events` from the empty world and returns the first violation, as a counterexample of that prefix; an
    /// event that cannot happen where it stands is one too, so that a saved sequence never passes by not running.
    package func replay(_ events: [ModelEvent]) -> Counterexample? {
        var state = ModelState(size: size)
        for (index, event) in events.enumerated() {
            guard state.enabledEvents.contains(event) else {
                return Counterexample(
                    invariant: "the sequence replays",
                    rules: [],
                    problem: "\(event) cannot happen there",
                    events: Array(events[...index])
                )
            }
            var after = state
            let actions = after.apply(event)
            let transition = Transition(before: state, event: event, actions: actions, after: after)
            if let (invariant, problem) = firstViolation(transition) {
                return Counterexample(
                    invariant: invariant.name,
                    rules: invariant.rules,
                    problem: problem,
                    events: Array(events[...index])
                )
            }
            state = after
        }
        return nil
    }

    package func firstViolation(_ transition: Transition) -> (Invariant, String)? {
        for invariant in invariants {
            if let problem = invariant.check(transition) { return (invariant, problem) }
        }
        return nil
    }
}

extension Counterexample {
    /// A Swift Testing test that replays the sequence and expects no violation: saved beside the explorer's
    /// tests, it fails until the rule is mended and guards it afterwards.
    package func regressionTest(named name: String, size: ExplorerSize) -> String {
        let events = events.map { "        \($0.swiftLiteral)," }.joined(separator: "\n")
        return """
            import LocationExplorer
            import Testing

            @Test("\(rules.joined(separator: ", ")): \(invariant), found by locd-explore")
            func \(name)() {
                let explorer = Explorer(
                    size: ExplorerSize(apps: \(size.apps), clients: \(size.clients), users: \(size.users), depth: \(size.depth))
                )
                let found = explorer.replay([
            \(events)
                ])
                #expect(found == nil, "\\(found.map(String.init(describing:)) ?? "")")
            }

            """
    }
}
