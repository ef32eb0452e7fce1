import Foundation
import LocationTestSupport

/// What a finished command printed (stdout and stderr together) and how it exited.
struct CommandResult {
    var status: Int32
    var output: String

    var lines: [Substring] { output.split(separator: "\n") }
}

/// A started command whose output is collected until it exits.
final class RunningCommand {
    private let process = Process()
    private let pipe = Pipe()

    /// - Parameter environment: set in the command's environment, over this process's.
    init(
        _ executable: String,
        _ arguments: [String],
        directory: String? = nil,
        environment: [String: String] = [:]
    ) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let directory {
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
        }
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Reads everything the command prints, then waits for it; kills it after `timeout`.
    func finish(timeout: Duration = .seconds(60)) -> CommandResult {
        let process = self.process
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        let seconds = Double(timeout.components.seconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        let ended = process.waitForExit()
        watchdog.cancel()
        return CommandResult(status: ended.status, output: String(decoding: data, as: UTF8.self))
    }
}

/// Runs a command to its end.
func run(
    _ executable: String,
    _ arguments: [String],
    directory: String? = nil,
    environment: [String: String] = [:]
) throws -> CommandResult {
    try RunningCommand(executable, arguments, directory: directory, environment: environment).finish()
}
