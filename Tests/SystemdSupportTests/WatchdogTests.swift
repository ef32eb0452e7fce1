import SystemdSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ProcessWideTests {
    @Suite("systemd: the watchdog interval from WATCHDOG_USEC")
    struct WatchdogTests {
        @Test("systemd: watchdogInterval is the full WATCHDOG_USEC when WATCHDOG_PID is this process")
        func enabled() {
            let interval = withEnvironment(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"]) {
                Systemd.watchdogInterval()
            }
            #expect(interval == .seconds(30))
        }

        @Test("systemd: watchdogInterval applies without WATCHDOG_PID, as systemd allows")
        func enabledWithoutPID() {
            let interval = withEnvironment(["WATCHDOG_USEC": "1500000", "WATCHDOG_PID": nil]) {
                Systemd.watchdogInterval()
            }
            #expect(interval == .milliseconds(1500))
        }

        @Test("systemd: watchdogInterval is nil when WATCHDOG_PID names another process")
        func otherProcess() {
            let interval = withEnvironment(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getppid())"]) {
                Systemd.watchdogInterval()
            }
            #expect(interval == nil)
        }

        @Test("systemd: watchdogInterval is nil when the watchdog is off or WATCHDOG_USEC is malformed")
        func off() {
            #expect(withEnvironment(["WATCHDOG_USEC": nil, "WATCHDOG_PID": nil]) { Systemd.watchdogInterval() } == nil)
            #expect(
                withEnvironment(["WATCHDOG_USEC": "soon", "WATCHDOG_PID": nil]) { Systemd.watchdogInterval() } == nil
            )
        }

        @Test("systemd: watchdogInterval leaves the variables in place for the next call")
        func keepsVariables() {
            withEnvironment(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"]) {
                _ = Systemd.watchdogInterval()
                #expect(environmentValue("WATCHDOG_USEC") == "30000000")
                #expect(Systemd.watchdogInterval() == .seconds(30))
            }
        }
    }
}
