import JSON
import LocationConfiguration
import LocationCore
import LocationProtocol
import LocationProviders
import Logging
import NIOCore

/// Runs every configured location provider while the core says location is needed (U3, U13), hands the core
/// the best fresh fix among them (U14, U15) through a ``FixSelection``, logs their state changes, and describes
/// them for `Admin.Status` (U16).
///
/// With one provider the selection is transparent (U17): its fixes and losses reach the core as they come,
/// and only a `stale-after` written in its table makes a silent provider's fix go stale.
///
/// Loop-bound: every method runs on the daemon's one event loop, the loop the providers are bound to.
final class ProviderSupervisor {
    private var configurations: [DaemonConfiguration.Provider]
    private var slots: [ProviderSlot]
    private var selection: FixSelection
    private let eventLoop: EventLoop
    private let logger: Logger
    private let clock = DaemonClock()
    /// Hands an event to the core, the way calls reach it; set once the session manager exists.
    private var deliver: ((Event) -> Void)?
    /// Whether the core wants the providers running.
    private var wanted = false
    /// The provider whose fix the core was given last, kept after the fix is lost, for status (U16).
    private var lastFixFrom: Int?
    /// The provider whose fix the core holds now, to log the changes.
    private var holding: Int?
    /// When the delivered fix goes stale: the selection is reviewed then.
    private var review: Scheduled<Void>?
    /// Counts starts and stops: an update of a provider stopped since is dropped.
    private var generation = 0
    /// Counts the fixes handed to the core: the loss a stop reports is dropped if a fix came after it.
    private var delivered = 0

    /// - Parameter configurations: the `[[provider]]` tables, or the one `[provider]` table.
    init(configurations: [DaemonConfiguration.Provider], eventLoop: EventLoop, logger: Logger) {
        self.configurations = configurations
        self.eventLoop = eventLoop
        self.logger = logger
        slots = Self.makeSlots(configurations, eventLoop: eventLoop, logger: logger)
        selection = Self.makeSelection(configurations)
    }

    private static func makeSlots(
        _ configurations: [DaemonConfiguration.Provider],
        eventLoop: EventLoop,
        logger: Logger
    ) -> [ProviderSlot] {
        zip(configurations, ProviderSlot.names(configurations)).map { configuration, name in
            ProviderSlot(configuration: configuration, name: name, eventLoop: eventLoop, logger: logger)
        }
    }

    /// Each provider's `stale-after`; with one provider only a written one (U17), with several its default too.
    private static func makeSelection(_ configurations: [DaemonConfiguration.Provider]) -> FixSelection {
        let single = configurations.count == 1
        return FixSelection(
            freshFor: configurations.map { configuration in
                let seconds = single ? configuration.staleAfter : configuration.freshFor
                return seconds.flatMap { $0.isFinite ? Span.seconds($0) : nil }
            }
        )
    }

    /// Where the providers' events go: the session manager's way into the core.
    func attach(_ deliver: @escaping (Event) -> Void) {
        self.deliver = deliver
    }

    /// Carries out the core's `provider(running:)` action.
    func setRunning(_ running: Bool) {
        guard running != wanted else { return }
        wanted = running
        if running {
            start()
        } else {
            stop(reason: "no session or stream needs location")
        }
    }

    /// Puts reloaded provider tables into effect: a changed list replaces the providers, restarting them if
    /// they were running; an unchanged one changes nothing.
    func reconfigure(_ configurations: [DaemonConfiguration.Provider]) {
        guard configurations != self.configurations else { return }
        let wasRunning = wanted
        if wasRunning { stop(reason: "the provider configuration changed") }
        self.configurations = configurations
        slots = Self.makeSlots(configurations, eventLoop: eventLoop, logger: logger)
        selection = Self.makeSelection(configurations)
        lastFixFrom = nil
        let names = slots.map { "\($0.name) (\($0.provider.source))" }.joined(separator: ", ")
        logger.notice("providers are now \(names)")
        if wasRunning { start() }
    }

    /// Stops the providers for good: the daemon is stopping.
    func shutdown() {
        wanted = false
        generation += 1
        cancelReview()
        for slot in slots { slot.provider.stop() }
    }

    private func start() {
        generation += 1
        let current = generation
        for (index, slot) in slots.enumerated() {
            slot.start { [weak self] update in
                guard let self, generation == current else { return }
                handle(update, from: index)
            }
        }
    }

    private func stop(reason: String) {
        generation += 1
        cancelReview()
        for slot in slots { slot.stop(reason: reason) }
        selection.reset()
        holding = nil
        // A stopped provider has no fix; the next start must not inherit the old one, even when it follows at
        // once (a reload that replaces the providers): only a fix of the new start makes the loss moot. On the
        // next turn of the loop: the caller is still carrying out the core's actions.
        let fixes = delivered
        eventLoop.assumeIsolated().execute { [self] in
            guard delivered == fixes else { return }
            deliver?(.fixLost)
        }
    }

    private func handle(_ update: ProviderUpdate, from index: Int) {
        slots[index].note(update)
        switch update {
        case .fix(let fix):
            carryOut(selection.receive(fix, from: index, at: clock.now()))
        case .fixLost:
            carryOut(selection.lose(index, at: clock.now()))
        case .state(.failed, _) where selection.fix(of: index) != nil:
            // A provider that cannot run has no fix, whether or not it said so.
            carryOut(selection.lose(index, at: clock.now()))
        case .state, .warning:
            break
        }
    }

    /// Tells the core what the selection decided, and arms the review for when the delivered fix goes stale.
    private func carryOut(_ decision: FixSelection.Decision) {
        switch decision {
        case .deliver(let fix, let index):
            if holding != index, slots.count > 1 {
                logger.info("location now from provider \(slots[index].name)", metadata: slots[index].metadata)
            }
            holding = index
            lastFixFrom = index
            delivered += 1
            deliver?(.fix(fix))
        case .lose:
            if holding != nil, slots.count > 1 {
                logger.notice("no provider has a fresh fix")
            }
            holding = nil
            deliver?(.fixLost)
        case .none:
            break
        }
        armReview()
    }

    private func armReview() {
        cancelReview()
        guard let due = selection.reviewAt else { return }
        let delay = max(0, due.since(clock.now()).nanoseconds)
        let current = generation
        review = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(delay)) { [self] in
            review = nil
            guard generation == current else { return }
            carryOut(selection.review(at: clock.now()))
        }
    }

    private func cancelReview() {
        review?.cancel()
        review = nil
    }

    // MARK: Status

    /// `Admin.Status`'s `provider`: the provider that supplied the last fix, else the first, with the core's
    /// view of demand and fix, as with a single provider (U16, U17).
    /// - Parameters:
    ///   - running: whether the core wants the providers running (U3).
    ///   - hasFix: whether the core holds a fix (D9).
    ///   - lastFix: the newest fix the core has, kept after it was lost so status can say when it was.
    func status(running: Bool, hasFix: Bool, lastFix: Fix?) -> WireProviderStatus {
        slots[lastFixFrom ?? 0].status(running: running, hasFix: hasFix, lastFix: lastFix)
    }

    /// `Admin.Status`'s `providers`: each provider in configuration order, with its own newest fix and whether
    /// it is fresh (U16).
    func statuses(running: Bool) -> [WireProviderStatus] {
        let now = clock.now()
        return slots.enumerated().map { index, slot in
            slot.status(running: running, hasFix: selection.isFresh(index, at: now), lastFix: slot.lastFix)
        }
    }

    /// `Admin.Status`'s `lastFixFrom`: the name of the provider that supplied the core's last fix.
    var lastFixSource: String? {
        lastFixFrom.map { slots[$0].name }
    }
}
