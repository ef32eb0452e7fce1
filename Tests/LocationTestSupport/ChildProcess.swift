import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program the test runs to its end (dunstctl, a second locd-agent): its exit status and what it printed.
///
/// The exit is waited for with `waitid(WNOWAIT)` within a deadline, as `DaemonProcess` waits for locd: Foundation's
/// `waitUntilExit` was seen to miss an exit under the parallel suite and wait for ever.
package struct ChildProcess {
    package var status: Int32
    package var output: String

    /// Runs `arguments` with `environment` added to the test's, and waits at most `timeout` seconds for its exit.
    package init(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 20) throws {
        let directory = try TemporaryDirectory(prefix: "agent-child")
        defer { directory.remove() }
        let outputPath = directory.at("output")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? handle.close()
        let pid = process.processIdentifier
        var info = siginfo_t()
        let exited = eventually(timeout: timeout, every: 0.01) {
            info = siginfo_t()
            let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG)
            // ECHILD: Foundation reaped it already.
            return (result == 0 && info._sifields._sigchld.si_pid != 0) || (result != 0 && errno == ECHILD)
        }
        guard exited else {
            kill(pid, SIGKILL)
            throw StandInFailure("\(arguments.joined(separator: " ")) did not exit in \(timeout) s")
        }
        if info._sifields._sigchld.si_pid != 0 {
            status = info._sifields._sigchld.si_status
        } else {
            // Foundation reaped it, and says it stopped running only once it has its status: asking before traps.
            guard eventually(timeout: timeout, every: 0.01, { !process.isRunning }) else {
                throw StandInFailure("\(arguments.joined(separator: " ")): no exit status in \(timeout) s")
            }
            status = process.terminationStatus
        }
        output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }
}
