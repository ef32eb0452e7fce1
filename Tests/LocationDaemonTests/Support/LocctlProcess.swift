import Foundation
import LocationTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The real `locctl` binary, run against a test daemon's socket.
enum LocctlBinary {
    /// `locctl` beside `locd`.
    static var binary: String {
        URL(fileURLWithPath: DaemonProcess.binary).deletingLastPathComponent().appendingPathComponent("locctl").path
    }

    /// What a finished `locctl` printed and how it exited.
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// The user and group an ordinary user's `locctl` runs as in these tests: nobody, who may not administer.
    static let nobody: UInt32 = 65534

    /// Makes `process` run `locctl` with `arguments`: as the test's own user, or through `setpriv` as `user` (and
    /// its group of the same number) with no supplementary group, which needs root.
    static func prepare(_ process: Process, _ arguments: [String], as user: UInt32?) {
        guard let user else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            return
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", binary] + arguments
    }

    /// Runs `locctl` to its end, with `LOCD_SOCKET` set to `socket`; as `user` where one is given.
    static func run(
        _ arguments: [String],
        socket: String,
        environment: [String: String] = [:],
        as user: UInt32? = nil
    ) throws -> Result {
        let process = Process()
        prepare(process, arguments, as: user)
        process.environment = ["LOCD_SOCKET": socket].merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Small outputs: stderr cannot fill its pipe while stdout is read to its end.
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        return Result(
            status: process.waitForExit().status,
            output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: err, as: UTF8.self)
        )
    }
}

/// A `locctl` that keeps running (`watch`, `agent`): its standard output is read line by line, each
/// read bounded by a deadline, and it is stopped with a signal.
final class RunningLocctl {
    let process = Process()
    private let output = Pipe()
    private lazy var reader = LineReader(output)
    /// Every line read so far, for failure messages.
    private(set) var transcript: [String] = []

    /// Its standard input, when started with `input: true`.
    let input: Pipe?

    /// Starts `locctl`; as `user` (through `setpriv`, which execs it in its own place) where one is given.
    init(_ arguments: [String], socket: String, input: Bool = false, as user: UInt32? = nil) throws {
        LocctlBinary.prepare(process, arguments, as: user)
        process.environment = ["LOCD_SOCKET": socket]
        process.standardOutput = output
        process.standardError = output
        self.input = input ? Pipe() : nil
        process.standardInput = self.input ?? FileHandle.nullDevice
        try process.run()
    }

    /// Closes its standard input: end of input.
    func closeInput() throws {
        try input?.fileHandleForWriting.close()
    }

    /// Waits at most `timeout` seconds for the process to exit by itself; its exit status, or `nil`.
    func exitStatus(within timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        // Reading to the end of its output is the signal: the pipe closes when the process exits.
        while nextLine(timeout: max(0, deadline.timeIntervalSinceNow)) != nil {}
        guard deadline.timeIntervalSinceNow > 0 || !process.isRunning else { return nil }
        return process.waitForExit().status
    }

    deinit {
        if process.isRunning { process.signalAndWait(SIGKILL) }
    }

    /// The next line, or `nil` when none comes within `timeout` seconds (or the process ended).
    func nextLine(timeout: Double) -> String? {
        guard let line = reader.next(by: Date().addingTimeInterval(timeout)) else { return nil }
        transcript.append(line)
        return line
    }

    /// Reads lines until one satisfies `condition` or `timeout` seconds pass.
    func line(within timeout: Double, where condition: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let line = nextLine(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if condition(line) { return line }
        }
        return nil
    }

    /// Sends `signal` and waits for the exit; returns the exit status (or the signal's number if it killed).
    func stop(with signal: Int32 = SIGINT) -> Int32 {
        process.signalAndWait(signal).status
    }
}
