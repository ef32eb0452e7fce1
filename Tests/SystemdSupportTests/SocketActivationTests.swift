import Foundation
import LocationTestSupport
import SystemdSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ProcessWideTests {
    /// Socket activation with a real socket on fd 3 runs in a child process (`SystemdProbe` under
    /// `systemd-socket-activate`): in this test process fd 3 is Dispatch's epoll descriptor, and
    /// putting a socket there even for a moment could break every timer and sleep running beside it.
    @Suite("systemd: socket activation")
    struct SocketActivationTests {
        static let activator = "/usr/bin/systemd-socket-activate"

        @Test(
            "systemd: listenedSockets finds the socket on fd 3 with its LISTEN_FDNAMES name and unsets LISTEN_*",
            .enabled(if: FileManager.default.isExecutableFile(atPath: activator))
        )
        func activated() throws {
            let directory = try TemporaryDirectory(prefix: "locd-systemd").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/io.locd"
            let probe = try #require(Self.probePath(), "SystemdProbe is built beside the test binary")

            let activator = try RunningCommand(Self.activator, ["-l", path, "--fdname=varlink", probe])
            // systemd-socket-activate execs the probe on the first connection.
            let client = try Self.connect(to: path, within: .seconds(10))
            defer { close(client) }
            let result = activator.finish(timeout: .seconds(30))

            #expect(result.status == 0, "\(result.output)")
            // systemd-socket-activate also reports on stderr ("Listening on", "Execing"): keep the probe's lines.
            let lines = result.lines.filter { $0.hasPrefix("socket ") || $0.hasPrefix("LISTEN_") }
            #expect(
                lines == [
                    "socket 3 varlink listening",
                    "LISTEN_FDS unset",
                    "LISTEN_PID unset",
                    "LISTEN_FDNAMES unset",
                ],
                "\(result.output)"
            )
        }

        @Test("systemd: listenedSockets ignores LISTEN_FDS meant for another process and still unsets LISTEN_*")
        func otherProcess() {
            // sd_listen_fds checks LISTEN_PID before it looks at any descriptor, so this is safe in-process.
            withEnvironment(["LISTEN_FDS": "1", "LISTEN_PID": "\(getppid())", "LISTEN_FDNAMES": "varlink"]) {
                #expect(Systemd.listenedSockets().isEmpty)
                #expect(environmentValue("LISTEN_FDS") == nil)
                #expect(environmentValue("LISTEN_PID") == nil)
                #expect(environmentValue("LISTEN_FDNAMES") == nil)
            }
        }

        @Test("systemd: listenedSockets is empty without socket activation")
        func notActivated() {
            withEnvironment(["LISTEN_FDS": nil, "LISTEN_PID": nil, "LISTEN_FDNAMES": nil]) {
                #expect(Systemd.listenedSockets().isEmpty)
            }
        }

        /// `SystemdProbe` beside the test binary (both are products of the same build).
        static func probePath() -> String? {
            let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            var folder = testBinary.deletingLastPathComponent()
            // On Linux the test binary is `<build>/locdPackageTests.xctest`; elsewhere it may be a bundle.
            for _ in 0..<4 {
                let candidate = folder.appendingPathComponent("SystemdProbe").path
                if FileManager.default.isExecutableFile(atPath: candidate) {
                    return candidate
                }
                folder = folder.deletingLastPathComponent()
            }
            return nil
        }

        /// Connects a stream socket to `path`, retrying until the listener has bound it.
        static func connect(to path: String, within timeout: Duration) throws -> Int32 {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            while true {
                let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                var address = sockaddr_un()
                address.sun_family = sa_family_t(AF_UNIX)
                withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
                if connected == 0 {
                    return descriptor
                }
                close(descriptor)
                guard clock.now < deadline else {
                    throw NotifySocket.Failure(description: "nothing listens on \(path)")
                }
                usleep(20_000)
            }
        }
    }
}
