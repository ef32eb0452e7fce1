import LocationCore

extension DaemonConfiguration {
    /// The `[lifecycle]` table: the timings of SEMANTICS §4 and §6, in seconds (fractions allowed, > 0).
    package struct Lifecycle: Hashable, Sendable {
        /// `background-grace` = 10: how long a backgrounded app stays in use (L2).
        package var backgroundGrace: Span = .seconds(10)
        /// `relaunch-window` = 10: how long a closed client's sessions linger (L3, R3).
        package var relaunchWindow: Span = .seconds(10)
        /// `relaunch-adopt` = 5: the least time a relaunching app gets to take its sessions back (L4).
        package var relaunchAdopt: Span = .seconds(5)
        /// `prompt-timeout` = 120: when an unanswered prompt is withdrawn (P8).
        package var promptTimeout: Span = .seconds(120)
        /// `agent-wait` = 5: how long a shown prompt waits for an agent when none is there before it is dismissed
        /// (P14); 0 dismisses it at once.
        package var agentWait: Span = .seconds(5)
        /// `always-reconfirm` = 259200 (3 days): how much background use under Always brings the prompt that
        /// asks whether to keep Always (P12); 0 turns it off. Apple publishes no number.
        package var alwaysReconfirm: Span = .seconds(259_200)

        package init() {}
    }
}
