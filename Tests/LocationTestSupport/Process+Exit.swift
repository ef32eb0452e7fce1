import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How a child process ended, as Foundation's `terminationStatus` and `terminationReason` say it.
package struct ProcessExit: Equatable, Sendable {
    /// The exit code, or the number of the signal that ended it.
    package var status: Int32
    /// `.exit`, or `.uncaughtSignal` when a signal ended it.
    package var reason: Process.TerminationReason
}

/// The one way the tests wait for a child they started with `Process`.
///
/// Foundation's `waitUntilExit` waits for its own watcher (a socket the child inherits, whose close wakes a
/// thread that reaps the child), and under a full suite of parallel tests spawning processes that watcher was
/// seen to miss an exit and wait for ever, each such test holding a thread of the pool until the suite stalled.
/// These wait with `waitid(WNOWAIT)` instead, which sees the exit without reaping it: Foundation still reaps the
/// child, when its watcher wakes. So after these return, `terminationStatus`, `terminationReason` and `isRunning`
/// may not know of the exit yet (the first two trap then): use what they return.
extension Process {
    /// Waits for the child's exit; how it ended.
    @discardableResult
    package func waitForExit() -> ProcessExit {
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) != 0 {
            // ECHILD: Foundation reaped it already, and knows how it ended.
            guard errno == EINTR else {
                waitUntilExit()
                return ProcessExit(status: terminationStatus, reason: terminationReason)
            }
        }
        letGoOnceReaped()
        // WEXITED reports CLD_EXITED, CLD_KILLED or CLD_DUMPED; si_status is the exit code or the signal.
        return ProcessExit(
            status: info._sifields._sigchld.si_status,
            reason: info.si_code == CLD_EXITED ? .exit : .uncaughtSignal
        )
    }

    /// Lets Foundation drop the process once it has reaped the child.
    ///
    /// A started `Process` is kept alive by its own run-loop source until `waitUntilExit` clears it, and with it the
    /// handles it gave the child: a log file, a pipe. Waited for only with `waitid`, every process a test ran kept
    /// those descriptors open to the end of the suite, and the suite came to hold more than 1,300 at once. Past
    /// about 1,360, the listing of /proc/self/fd fills the buffer Foundation's next `Process.run` reads it into,
    /// and that read copies beyond its last entry: a crash in `memcpy`. Once the child is reaped (`isRunning` is
    /// false), `waitUntilExit` returns at once and lets go; a watcher that missed the exit is not waited for.
    private func letGoOnceReaped() {
        guard eventually(timeout: 5, every: 0.005, { !isRunning }) else { return }
        waitUntilExit()
    }

    /// Sends `signal` to the child unless it has exited, then waits for its exit; how it ended.
    @discardableResult
    package func signalAndWait(_ signal: Int32) -> ProcessExit {
        let pid = processIdentifier
        var info = siginfo_t()
        // Signalled only while it has not exited: once Foundation has reaped it, its pid may be another process's.
        if waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG) == 0 && info._sifields._sigchld.si_pid == 0 {
            kill(pid, signal)
        }
        return waitForExit()
    }

    /// Waits for the child's exit, then at most `timeout` seconds for Foundation to reap it, for a test about a
    /// pid that is free again; whether it was reaped.
    package func waitUntilReaped(timeout: Double = 20) -> Bool {
        waitForExit()
        return eventually(timeout: timeout) { !isRunning }
    }
}
