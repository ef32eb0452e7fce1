import LocationTestSupport
import SystemdSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ProcessWideTests {
    @Suite("systemd: notifications through a real NOTIFY_SOCKET")
    struct SystemdNotifierTests {
        let notifier = SystemdNotifier()

        @Test("systemd: READY=1 and STATUS reach NOTIFY_SOCKET")
        func ready() throws {
            let socket = try NotifySocket()
            withEnvironment(["NOTIFY_SOCKET": socket.path]) {
                #expect(notifier.ready(status: "listening on /run/locd/io.locd"))
            }
            #expect(socket.receive() == "READY=1\nSTATUS=listening on /run/locd/io.locd")
        }

        @Test("systemd: READY=1 without a status is the bare assignment")
        func readyWithoutStatus() throws {
            let socket = try NotifySocket()
            withEnvironment(["NOTIFY_SOCKET": socket.path]) {
                #expect(notifier.ready())
            }
            #expect(socket.receive() == "READY=1")
        }

        @Test("systemd: RELOADING=1 carries MONOTONIC_USEC of the moment it was sent")
        func reloading() throws {
            let socket = try NotifySocket()
            let before = monotonicMicroseconds()
            withEnvironment(["NOTIFY_SOCKET": socket.path]) {
                #expect(notifier.reloading(status: "reloading configuration"))
            }
            let after = monotonicMicroseconds()
            let lines = try #require(socket.receive()).split(separator: "\n")
            try #require(lines.count == 3)
            #expect(lines[0] == "RELOADING=1")
            let stamp = try #require(lines[1].split(separator: "=").last.flatMap { UInt64($0) })
            #expect(lines[1].hasPrefix("MONOTONIC_USEC="))
            #expect((before...after).contains(stamp))
            #expect(lines[2] == "STATUS=reloading configuration")
        }

        @Test("systemd: STOPPING=1 reaches NOTIFY_SOCKET")
        func stopping() throws {
            let socket = try NotifySocket()
            withEnvironment(["NOTIFY_SOCKET": socket.path]) {
                #expect(notifier.stopping())
            }
            #expect(socket.receive() == "STOPPING=1")
        }

        @Test("systemd: WATCHDOG=1 reaches NOTIFY_SOCKET")
        func watchdog() throws {
            let socket = try NotifySocket()
            withEnvironment(["NOTIFY_SOCKET": socket.path]) {
                #expect(notifier.watchdogPing())
            }
            #expect(socket.receive() == "WATCHDOG=1")
        }

        @Test("systemd: a line break in STATUS cannot smuggle in another assignment")
        func statusIsOneLine() throws {
            let socket = try NotifySocket()
            withEnvironment(["NOTIFY_SOCKET": socket.path]) {
                #expect(notifier.status("config error\nREADY=1"))
            }
            #expect(socket.receive() == "STATUS=config error READY=1")
        }

        @Test("systemd: without NOTIFY_SOCKET every notification is a no-op answering false")
        func withoutSocket() {
            withEnvironment(["NOTIFY_SOCKET": nil]) {
                #expect(!notifier.ready(status: "x"))
                #expect(!notifier.reloading(status: nil))
                #expect(!notifier.stopping())
                #expect(!notifier.status("x"))
                #expect(!notifier.watchdogPing())
            }
        }

        private func monotonicMicroseconds() -> UInt64 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        }
    }
}
