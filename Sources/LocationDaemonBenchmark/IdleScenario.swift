import Foundation

/// Scenario 8: how often `locd` wakes with nothing to do, no client and no deadline pending.
///
/// Every wake-up of a thread that blocked (an `epoll_wait` return, a timer) is a voluntary context
/// switch, and a preemption an involuntary one; `/proc/PID/task/*/status` counts both per thread.
///
/// Idle starts when start-up has finished: the first second after `READY=1` still has start-up's own
/// threads winding down (libdispatch's, started for the signal sources, switch a few times as they park and
/// exit). So the count starts once no thread has switched for ``quietSeconds`` in a row, observed by
/// reading the counters every ``pollSeconds``, and at most ``settleLimit`` after the scenario starts; a
/// daemon that never goes quiet is measured all the same, and the figure says so.
struct IdleScenario {
    var seconds: Double
    var quietSeconds = 2.0
    var pollSeconds = 0.25
    var settleLimit = 15.0

    struct Result {
        var perMinute: Double
        var threads: Int
        /// Seconds from the scenario's start (just after `READY=1`) to the start of the count, once the daemon
        /// was quiet; nil if it never was.
        var settled: Double?
    }

    /// Context switches of all of locd's threads over the idle period, scaled to one minute.
    func run(_ daemon: DaemonUnderTest) throws -> Result {
        let stats = daemon.stats
        let settled = try settle(stats)
        let before = try stats.contextSwitches()
        // The idle period is the measurement itself: nothing is awaited, only time is let pass.
        Thread.sleep(forTimeInterval: seconds)
        let after = try stats.contextSwitches()
        try daemon.checkAlive("the idle period")
        let switches = ProcessStats.switches(from: before, to: after)
        return Result(perMinute: Double(switches) * 60 / seconds, threads: stats.threadCount(), settled: settled)
    }

    /// Reads the counters until they have not moved for ``quietSeconds``; the seconds that took, or nil
    /// when ``settleLimit`` passed first.
    func settle(_ stats: ProcessStats) throws -> Double? {
        let start = Clock.now
        var last = try stats.contextSwitches()
        var quietSince = start
        while Clock.now - start < settleLimit {
            Thread.sleep(forTimeInterval: pollSeconds)
            let now = try stats.contextSwitches()
            if ProcessStats.switches(from: last, to: now) > 0 { quietSince = Clock.now }
            last = now
            if Clock.now - quietSince >= quietSeconds { return Clock.now - start }
        }
        return nil
    }
}
