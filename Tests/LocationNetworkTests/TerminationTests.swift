import Foundation
import LocationTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// locd-network's stop: a SIGTERM at any moment after it starts, READY=1 included, ends it as locd-network(8) says
/// (exit 0, "stopping" logged), as `systemctl stop` expects.
@Suite("locd-network's stop")
struct TerminationTests {
    @Test("locd-network(8) EXIT STATUS: a SIGTERM while it sends READY=1 stops it cleanly, exit 0")
    func termAtReady() throws {
        let directory = try TemporaryDirectory(prefix: "locd-network-term")
        defer { directory.remove() }
        let socket = directory.at("network.sock")
        let notify = try NotifySocket(path: directory.at("notify"))
        let network = Process()
        // strace holds the process 0.5 s after its sendmsg of READY=1 returns, the moment before it turns to wait
        // for signals: a SIGTERM then was taken by its default action and killed it, unserved and uncleaned.
        network.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        network.arguments = [
            "-f", "-qq", "-o", "/dev/null", "-e", "trace=sendmsg", "-e", "inject=sendmsg:delay_exit=500000",
            NetworkLocationProcess.binary, "--socket", socket, "--log-level", "debug",
        ]
        network.environment = NetworkLocationProcess.environment(
            notify: notify.path,
            bus: "unix:path=\(directory.path)/no-bus"
        )
        let logPath = directory.at("locd-network.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        network.standardOutput = FileHandle.nullDevice
        network.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try network.run()
        try notify.waitFor("READY=1", timeout: 20, while: { network.isRunning })
        // strace ignores SIGTERM: locd-network is its child.
        let child = try #require(
            (try? String(
                contentsOfFile: "/proc/\(network.processIdentifier)/task/\(network.processIdentifier)/children",
                encoding: .utf8
            )).flatMap { Int32($0.split(separator: " ").first ?? "") }
        )
        kill(child, SIGTERM)
        // Before the mend the signal was lost there, and locd-network served on: it is killed after 10 s.
        let ended = eventually(timeout: 10, every: 0.01) {
            var info = siginfo_t()
            let pid = id_t(network.processIdentifier)
            // ECHILD: Foundation has reaped it already.
            guard waitid(P_PID, pid, &info, WEXITED | WNOWAIT | WNOHANG) == 0 else { return errno == ECHILD }
            return info._sifields._sigchld.si_pid != 0
        }
        if !ended { kill(child, SIGKILL) }
        let exit = network.waitForExit()
        #expect(ended, "locd-network was still running 10 s after SIGTERM")
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        #expect(exit.reason == .exit && exit.status == 0, "\(exit)\n\(log)")
        #expect(log.contains("stopping"), "\(log)")
    }
}
