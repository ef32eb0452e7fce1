import LocationCore
import LocationExplorer
import Testing

/// The explorer at the size CI affords, and the machinery that reports what it finds.
@Suite("Explorer")
struct ExplorerTests {
    /// 2 apps × 3 clients × 2 users to depth 5: a debug build explores its 84,000 transitions in about 10 s
    /// (docs/PERFORMANCE.md gives the figures; `make explore` runs the release build to depth 8).
    static let ciSize = ExplorerSize.continuousIntegration

    @Test("L1, L5, L6, U1, U2, S6, S7, S8, R1, R2, R3, D1, D12, H1: no event sequence to the CI depth breaks a rule")
    func noCounterexample() {
        let report = Explorer(size: Self.ciSize).explore()
        #expect(report.counterexample == nil, "\(report.counterexample.map(String.init(describing:)) ?? "")")
        #expect(report.depthReached == Self.ciSize.depth)
        #expect(report.distinctStates > 1_000)
        #expect(report.statesExplored > report.distinctStates)
    }

    @Test("L1: the shortest sequence is reported, and its saved test replays it")
    func shortestCounterexample() throws {
        // Breaks after the second launch of any app: the shortest sequence has two events.
        let secondLaunch = Invariant("a second process", rules: ["L1"]) { transition in
            transition.after.clients.filter(\.isConnected).count > 1 ? "two processes" : nil
        }
        let size = ExplorerSize(depth: 4)
        let explorer = Explorer(size: size, invariants: [secondLaunch])
        let counterexample = try #require(explorer.explore().counterexample)
        #expect(counterexample.events.count == 2)
        #expect(counterexample.events.allSatisfy { if case .launch = $0 { true } else { false } })
        #expect(explorer.replay(counterexample.events)?.events == counterexample.events)
        #expect(Explorer(size: size).replay(counterexample.events) == nil)
        let test = counterexample.regressionTest(named: "secondLaunch", size: size)
        #expect(test.contains("func secondLaunch()"))
        #expect(test.contains(counterexample.events[1].swiftLiteral))
        #expect(test.contains("@Test(\"L1: a second process, found by locd-explore\")"))
    }

    @Test("L1: two users' copies of a state are one state, and so are two processes swapped")
    func symmetry() {
        var first = ModelState(size: Self.ciSize)
        _ = first.apply(.launch(client: 0, app: 0, user: 0, background: false))
        var second = ModelState(size: Self.ciSize)
        _ = second.apply(.launch(client: 0, app: 0, user: 1, background: false))
        #expect(first.fingerprint == second.fingerprint)

        _ = first.apply(.launch(client: 1, app: 1, user: 0, background: false))
        _ = second.apply(.launch(client: 1, app: 1, user: 1, background: false))
        _ = first.apply(.create(client: 1, .whenInUse, purpose: false))
        var swapped = ModelState(size: Self.ciSize)
        _ = swapped.apply(.launch(client: 0, app: 1, user: 0, background: false))
        _ = swapped.apply(.launch(client: 1, app: 0, user: 0, background: false))
        _ = swapped.apply(.create(client: 0, .whenInUse, purpose: false))
        #expect(first.fingerprint == swapped.fingerprint)
        #expect(first.fingerprint != second.fingerprint)
    }
}

extension ExplorerTests {
    @Test("L1: a saved sequence whose events cannot happen fails its replay instead of passing")
    func unreplayableSequence() throws {
        let explorer = Explorer(size: Self.ciSize)
        let found = try #require(explorer.replay([.disconnect(client: 2)]))
        #expect(found.invariant == "the sequence replays")
        #expect(explorer.replay([.launch(client: 0, app: 0, user: 0, background: false)]) == nil)
    }
}

extension ExplorerTests {
    @Test("L1: two threads and small batches find the same states, transitions and counterexample as one thread")
    func threadsDoNotChangeTheResult() throws {
        let size = ExplorerSize(depth: 4)
        let alone = Explorer(size: size).explore()
        let both = Explorer(size: size, threads: 2, batchSize: 3).explore()
        #expect(alone.counterexample == nil && both.counterexample == nil)
        #expect(both.statesExplored == alone.statesExplored)
        #expect(both.distinctStates == alone.distinctStates)
        #expect(both.depthReached == 4 && alone.depthReached == 4)

        // A rule that breaks only at the full depth: three processes at once.
        let third = Invariant("a third process", rules: ["L1"]) { transition in
            transition.after.clients.filter(\.isConnected).count > 2 ? "three processes" : nil
        }
        let single = try #require(Explorer(size: size, invariants: [third]).explore().counterexample)
        let parallel = try #require(
            Explorer(size: size, invariants: [third], threads: 2, batchSize: 2).explore().counterexample
        )
        #expect(parallel.events == single.events)
        #expect(single.events.count == 3)
    }

    @Test("L1: in the last pass, a violation one event short of the depth wins over a deeper one found before it")
    func shorterViolationWinsInTheLastPass() throws {
        // Three launches break one rule at depth 3, found while the first launch's successors are expanded; turning
        // location services off and on again breaks another at depth 2, from a parent that comes later.
        let third = Invariant("a third process", rules: ["L1"]) { transition in
            transition.after.clients.filter(\.isConnected).count > 2 ? "three processes" : nil
        }
        let toggled = Invariant("services back on", rules: ["A4"]) { transition in
            guard case .services(true) = transition.event else { return nil }
            return "services turned on again"
        }
        let size = ExplorerSize(depth: 3)
        for batchSize in [1, 256] {
            let explorer = Explorer(size: size, invariants: [third, toggled], threads: 2, batchSize: batchSize)
            let found = try #require(explorer.explore().counterexample)
            #expect(found.events == [.services(false), .services(true)], "batches of \(batchSize)")
        }
    }
}
