import LocationTestSupport
import Testing

@testable import LocationCore

/// U13–U15's selection of the best fresh fix among several providers, in virtual time: every decision checked
/// against what the core is to hear.
@Suite("FixSelection")
struct FixSelectionTests {
    /// A GPS fix: 5 m.
    static func gps(_ latitude: Double = 35.0, accuracy: Double = 5) -> Fix {
        Fix(latitude: latitude, longitude: 139.0, horizontalAccuracy: accuracy, timestamp: 1_700_000_000)
    }

    /// A network position: 40 m.
    static func network(_ latitude: Double = 35.001, accuracy: Double = 40) -> Fix {
        Fix(latitude: latitude, longitude: 139.001, horizontalAccuracy: accuracy, timestamp: 1_700_000_000)
    }

    /// GPS first (fresh for 5 s), network second (fresh for 360 s).
    static func gpsThenNetwork() -> FixSelection {
        FixSelection(freshFor: [.seconds(5), .seconds(360)])
    }

    static func at(_ seconds: Double) -> Instant { .seconds(seconds) }

    @Test("U14: the first fix of any provider is delivered")
    func firstFix() {
        var selection = Self.gpsThenNetwork()
        #expect(selection.receive(Self.network(), from: 1, at: Self.at(1)) == .deliver(Self.network(), from: 1))
        #expect(selection.delivered == 1)
    }

    @Test("U14: a more accurate fresh fix wins; a less accurate one is not delivered while it is fresh")
    func mostAccurateWins() {
        var selection = Self.gpsThenNetwork()
        _ = selection.receive(Self.network(), from: 1, at: Self.at(1))
        #expect(selection.receive(Self.gps(), from: 0, at: Self.at(2)) == .deliver(Self.gps(), from: 0))
        #expect(selection.receive(Self.network(35.002), from: 1, at: Self.at(3)) == .none)
        #expect(selection.receive(Self.gps(35.1), from: 0, at: Self.at(3.5)) == .deliver(Self.gps(35.1), from: 0))
        #expect(selection.delivered == 0)
    }

    @Test("U14: the best provider's every new fix is delivered")
    func bestProviderUpdates() {
        var selection = Self.gpsThenNetwork()
        for second in 1...10 {
            let fix = Self.gps(35 + Double(second) / 1000)
            #expect(selection.receive(fix, from: 0, at: Self.at(Double(second))) == .deliver(fix, from: 0))
        }
    }

    @Test("U14: a tie in accuracy goes to the provider listed first, whichever came first")
    func tieGoesToFirstListed() {
        var selection = Self.gpsThenNetwork()
        let second = Self.network(accuracy: 5)
        #expect(selection.receive(second, from: 1, at: Self.at(1)) == .deliver(second, from: 1))
        #expect(selection.receive(Self.gps(), from: 0, at: Self.at(2)) == .deliver(Self.gps(), from: 0))
        #expect(selection.receive(Self.network(35.3, accuracy: 5), from: 1, at: Self.at(3)) == .none)
        #expect(selection.best(at: Self.at(3)) == 0)
    }

    @Test("U15: when the best provider loses its fix the next best fresh fix is delivered again at once")
    func lossHandsOver() {
        var selection = Self.gpsThenNetwork()
        _ = selection.receive(Self.network(), from: 1, at: Self.at(1))
        _ = selection.receive(Self.gps(), from: 0, at: Self.at(2))
        #expect(selection.lose(0, at: Self.at(3)) == .deliver(Self.network(), from: 1))
        #expect(selection.delivered == 1)
        #expect(selection.fix(of: 0) == nil)
    }

    @Test("U15: the better provider's fix wins again as soon as it returns")
    func returnWins() {
        var selection = Self.gpsThenNetwork()
        _ = selection.receive(Self.network(), from: 1, at: Self.at(1))
        _ = selection.receive(Self.gps(), from: 0, at: Self.at(2))
        _ = selection.lose(0, at: Self.at(3))
        #expect(selection.receive(Self.gps(35.2), from: 0, at: Self.at(20)) == .deliver(Self.gps(35.2), from: 0))
        #expect(selection.delivered == 0)
    }

    @Test("U15: a stale best fix hands over at its review instant; the review is due exactly then")
    func staleHandsOver() {
        var selection = Self.gpsThenNetwork()
        _ = selection.receive(Self.network(), from: 1, at: Self.at(1))
        _ = selection.receive(Self.gps(), from: 0, at: Self.at(2))
        #expect(selection.reviewAt == Self.at(7))
        #expect(selection.review(at: Self.at(6.999)) == .none)
        #expect(selection.isFresh(0, at: Self.at(6.999)))
        #expect(!selection.isFresh(0, at: Self.at(7)))
        #expect(selection.review(at: Self.at(7)) == .deliver(Self.network(), from: 1))
        #expect(selection.reviewAt == Self.at(361))
        // The stale GPS fix does not come back by itself: a new one does.
        #expect(selection.review(at: Self.at(8)) == .none)
        #expect(selection.receive(Self.gps(35.4), from: 0, at: Self.at(9)) == .deliver(Self.gps(35.4), from: 0))
    }

    @Test("U14: a loss reaches the core only when no provider has a fresh fix")
    func lossOnlyWhenNoneFresh() {
        var selection = Self.gpsThenNetwork()
        _ = selection.receive(Self.network(), from: 1, at: Self.at(1))
        _ = selection.receive(Self.gps(), from: 0, at: Self.at(2))
        // The network provider, not delivered, loses its fix: the GPS fix stands.
        #expect(selection.lose(1, at: Self.at(3)) == .none)
        #expect(selection.lose(0, at: Self.at(4)) == .lose)
        #expect(selection.delivered == nil)
        // A loss with nothing delivered is passed on: the core's fix state is idempotent.
        #expect(selection.lose(1, at: Self.at(5)) == .lose)
    }

    @Test("U14: a loss while the only other fix is stale loses the core's fix")
    func lossWithOtherStale() {
        var selection = FixSelection(freshFor: [.seconds(5), .seconds(10)])
        _ = selection.receive(Self.network(), from: 1, at: Self.at(1))
        _ = selection.receive(Self.gps(), from: 0, at: Self.at(2))
        #expect(selection.lose(0, at: Self.at(11)) == .lose)
    }

    @Test("U14: every fix stale at review loses the core's fix, and the next fix is delivered")
    func allStale() {
        var selection = FixSelection(freshFor: [.seconds(5), .seconds(10)])
        _ = selection.receive(Self.network(), from: 1, at: Self.at(1))
        _ = selection.receive(Self.gps(), from: 0, at: Self.at(2))
        #expect(selection.review(at: Self.at(12)) == .lose)
        #expect(selection.reviewAt == nil)
        #expect(
            selection.receive(Self.network(35.5), from: 1, at: Self.at(13)) == .deliver(Self.network(35.5), from: 1)
        )
    }

    @Test("U14: a provider whose fix is more accurate than the delivered one takes over with its new fix")
    func worseningBestLosesToBetter() {
        var selection = Self.gpsThenNetwork()
        _ = selection.receive(Self.network(), from: 1, at: Self.at(1))
        _ = selection.receive(Self.gps(), from: 0, at: Self.at(2))
        // GPS degrades to 80 m: the network's 40 m position, still fresh, is now the best and is delivered.
        #expect(selection.receive(Self.gps(accuracy: 80), from: 0, at: Self.at(3)) == .deliver(Self.network(), from: 1))
        #expect(selection.receive(Self.gps(accuracy: 70), from: 0, at: Self.at(4)) == .none)
        #expect(
            selection.receive(Self.gps(accuracy: 4), from: 0, at: Self.at(5))
                == .deliver(Self.gps(accuracy: 4), from: 0)
        )
    }

    @Test("U17: a provider with no stale-after stays fresh until it reports a loss")
    func neverStale() {
        var selection = FixSelection(freshFor: [nil])
        _ = selection.receive(Self.gps(), from: 0, at: Self.at(1))
        #expect(selection.reviewAt == nil)
        #expect(selection.review(at: Self.at(1_000_000)) == .none)
        #expect(selection.best(at: Self.at(1_000_000)) == 0)
        #expect(selection.lose(0, at: Self.at(1_000_001)) == .lose)
    }

    @Test("U14: reset forgets every fix; indices outside the providers change nothing")
    func resetAndBounds() {
        var selection = Self.gpsThenNetwork()
        _ = selection.receive(Self.gps(), from: 0, at: Self.at(1))
        selection.reset()
        #expect(selection.delivered == nil)
        #expect(selection.best(at: Self.at(1)) == nil)
        #expect(selection.receive(Self.gps(), from: 2, at: Self.at(2)) == .none)
        #expect(selection.lose(-1, at: Self.at(2)) == .none)
    }

    @Test("U14: over random sequences, what is delivered is always the most accurate fresh fix")
    func randomSequences() {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<200 {
            var selection = FixSelection(freshFor: [.seconds(2), .seconds(5), nil])
            var now = 0.0
            var held: Fix?
            for _ in 0..<40 {
                now += Double(generator.next() % 3000) / 1000
                let index = Int(generator.next() % 3)
                let decision: FixSelection.Decision
                switch generator.next() % 4 {
                case 0: decision = selection.lose(index, at: Self.at(now))
                case 1: decision = selection.review(at: Self.at(now))
                default:
                    let accuracy = Double(1 + generator.next() % 50)
                    decision = selection.receive(Self.gps(accuracy: accuracy), from: index, at: Self.at(now))
                }
                switch decision {
                case .deliver(let fix, _): held = fix
                case .lose: held = nil
                case .none: break
                }
                let best = selection.best(at: Self.at(now))
                // The core holds a fix iff a fresh one exists (a stale one at most until its review is due).
                if let best, let fix = selection.fix(of: best) {
                    #expect(
                        held?.horizontalAccuracy == fix.horizontalAccuracy
                            || selection.reviewAt.map { $0 <= Self.at(now) } == true
                    )
                } else if held != nil {
                    #expect(selection.reviewAt.map { $0 <= Self.at(now) } == true)
                }
            }
        }
    }
}
