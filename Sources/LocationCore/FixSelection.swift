/// Which of several providers' fixes the core gets (SEMANTICS U14, U15): the most accurate fresh one.
///
/// Each provider, by its index in the configuration, has a newest fix and the instant locd received it. A fix
/// is fresh while its provider has reported no loss since and `freshFor` has not passed since it was received
/// (the instant of receipt, on the daemon's clock: a provider's own timestamp may be replayed or skewed). The
/// best fix is the fresh one with the smallest horizontal accuracy; a tie goes to the provider listed first.
///
/// The selection decides what the core hears: a fix when the best fix is new or comes from another provider
/// than the last one delivered (a takeover, which delivers that provider's newest fix again at once), a loss
/// when no provider has a fresh fix any more, and nothing otherwise (a less accurate provider's fix while a
/// better one is fresh). It reads no clock: every call carries the current instant, and ``reviewAt`` says
/// when the delivered fix goes stale, for the shell to call ``review(at:)`` then.
package struct FixSelection: Equatable, Sendable {
    /// What the core is to hear.
    package enum Decision: Equatable, Sendable {
        /// The best fix, from the provider at `from`.
        case deliver(Fix, from: Int)
        /// No provider has a fresh fix.
        case lose
        /// Nothing changes for the core.
        case none
    }

    /// One provider's newest fix.
    private struct Source: Equatable, Sendable {
        var freshFor: Span?
        var fix: Fix?
        var receivedAt = Instant.zero

        func isFresh(at now: Instant) -> Bool {
            guard fix != nil else { return false }
            guard let freshFor else { return true }
            return now < receivedAt.adding(freshFor)
        }
    }

    private var sources: [Source]
    /// The provider whose fix the core was last given, while the core holds a fix.
    package private(set) var delivered: Int?

    /// - Parameter freshFor: for each provider, in configuration order, how long its fix stays fresh; `nil`
    ///   means until the provider reports a loss.
    package init(freshFor: [Span?]) {
        sources = freshFor.map { Source(freshFor: $0) }
    }

    /// The newest fix of the provider at `index`, fresh or not, while it has reported no loss since.
    package func fix(of index: Int) -> Fix? {
        sources.indices.contains(index) ? sources[index].fix : nil
    }

    /// Whether the provider at `index` has a fresh fix at `now`.
    package func isFresh(_ index: Int, at now: Instant) -> Bool {
        sources.indices.contains(index) && sources[index].isFresh(at: now)
    }

    /// The provider with the best fresh fix at `now`: the smallest accuracy, a tie to the lowest index.
    package func best(at now: Instant) -> Int? {
        var best: Int?
        for index in sources.indices where sources[index].isFresh(at: now) {
            guard let current = best else {
                best = index
                continue
            }
            // Fresh sources have a fix; a smaller accuracy wins, the earlier index keeps a tie.
            if let candidate = sources[index].fix?.horizontalAccuracy,
                let standing = sources[current].fix?.horizontalAccuracy, candidate < standing
            {
                best = index
            }
        }
        return best
    }

    /// The provider at `index` reported `fix` at `now`.
    package mutating func receive(_ fix: Fix, from index: Int, at now: Instant) -> Decision {
        guard sources.indices.contains(index) else { return .none }
        sources[index].fix = fix
        sources[index].receivedAt = now
        guard let best = best(at: now) else { return settle(at: now) }
        if best == index || best != delivered { return deliverBest(best) }
        return .none
    }

    /// The provider at `index` has no fix (it lost it, or it stopped) at `now`.
    package mutating func lose(_ index: Int, at now: Instant) -> Decision {
        guard sources.indices.contains(index) else { return .none }
        sources[index].fix = nil
        guard delivered == index || delivered == nil else { return .none }
        return settle(at: now)
    }

    /// The instant the delivered fix goes stale, if it ever does; ``review(at:)`` is due then.
    package var reviewAt: Instant? {
        guard let delivered, let freshFor = sources[delivered].freshFor else { return nil }
        return sources[delivered].receivedAt.adding(freshFor)
    }

    /// Time passed: if the delivered fix went stale, the best fresh one takes over, or the core loses its fix.
    package mutating func review(at now: Instant) -> Decision {
        guard let delivered, !sources[delivered].isFresh(at: now) else { return .none }
        return settle(at: now)
    }

    /// Every provider stopped: no fixes, nothing delivered.
    package mutating func reset() {
        for index in sources.indices { sources[index].fix = nil }
        delivered = nil
    }

    /// The best fresh fix if there is one, else a loss.
    private mutating func settle(at now: Instant) -> Decision {
        guard let best = best(at: now) else {
            delivered = nil
            return .lose
        }
        return deliverBest(best)
    }

    private mutating func deliverBest(_ index: Int) -> Decision {
        delivered = index
        // `best` returns only fresh sources, and a fresh source has a fix.
        guard let fix = sources[index].fix else { return .none }
        return .deliver(fix, from: index)
    }
}
