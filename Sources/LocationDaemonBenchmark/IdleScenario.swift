import Foundation

/// Scenario 8: how often `locd` wakes with nothing to do, no client and no deadline pending.
///
/// Every wake-up of a thread that blocked (an `epoll_wait` return, a timer) is a voluntary context
/// switch, and a preemption an involuntary one; `/proc/PID/task/*/status` counts both per thread.
struct IdleScenario {
    var seconds: Double

    /// Context switches of all of locd's threads over the idle period, scaled to one minute.
    func run(_ daemon: DaemonUnderTest) throws -> (perMinute: Double, threads: Int) {
        let stats = daemon.stats
        let before = try stats.contextSwitches()
        // The idle period is the measurement itself: nothing is awaited, only time is let pass.
        Thread.sleep(forTimeInterval: seconds)
        let after = try stats.contextSwitches()
        try daemon.checkAlive("the idle period")
        let switches = ProcessStats.switches(from: before, to: after)
        return (Double(switches) * 60 / seconds, stats.threadCount())
    }
}
