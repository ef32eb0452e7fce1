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
package struct Explorer {
    package let size: ExplorerSize
    package let invariants: [Invariant]

    package init(size: ExplorerSize, invariants: [Invariant] = Invariant.all) {
        self.size = size
        self.invariants = invariants
    }

    /// Explores level by level; stops at the first violation, whose sequence is then a shortest one.
    /// `progress` is told each level's depth and the distinct states so far.
    package func explore(progress: (Int, Int) -> Void = { _, _ in }) -> ExplorationReport {
        var report = ExplorationReport()
        let root = ModelState(size: size)
        var seen: Set<Fingerprint> = [root.fingerprint]
        // Each visited state's parent and the event that reached it, for the counterexample's sequence.
        var parents: [(parent: Int32, event: ModelEvent?)] = [(-1, nil)]
        var frontier: [(node: Int32, state: ModelState)] = [(0, root)]
        for depth in 1...max(1, size.depth) where size.depth > 0 && !frontier.isEmpty {
            var next: [(node: Int32, state: ModelState)] = []
            for (node, state) in frontier {
                for event in state.enabledEvents {
                    var after = state
                    let actions = after.apply(event)
                    report.statesExplored += 1
                    let transition = Transition(before: state, event: event, actions: actions, after: after)
                    if let (invariant, problem) = firstViolation(transition) {
                        report.counterexample = Counterexample(
                            invariant: invariant.name,
                            rules: invariant.rules,
                            problem: problem,
                            events: path(to: node, parents) + [event]
                        )
                        report.depthReached = depth
                        report.distinctStates = seen.count
                        return report
                    }
                    // The last level's states are not expanded: their fingerprints would save nothing.
                    guard depth < size.depth else { continue }
                    guard seen.insert(after.fingerprint).inserted else { continue }
                    parents.append((node, event))
                    next.append((Int32(parents.count - 1), after))
                }
            }
            report.depthReached = depth
            frontier = next
            progress(depth, seen.count)
        }
        report.distinctStates = seen.count
        return report
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

    private func path(to node: Int32, _ parents: [(parent: Int32, event: ModelEvent?)]) -> [ModelEvent] {
        var events: [ModelEvent] = []
        var current = node
        while current >= 0 {
            if let event = parents[Int(current)].event { events.append(event) }
            current = parents[Int(current)].parent
        }
        return events.reversed()
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
