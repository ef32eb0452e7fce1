import Foundation
import LocationTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A program run to its end with a deadline: what it printed and how it exited.
struct CommandResult {
    var status: Int32
    var output: String
    var errors: String
    var elapsed: Double

    /// The JSON objects it printed, one a line.
    var objects: [[String: Any]] {
        output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }
}

/// Programs the tests run to their end, and polling with a deadline in place of sleeps.
enum Command {
    /// Runs `arguments[0]` with the rest, `environment` added to this process's; kills it (SIGKILL) past `timeout`
    /// seconds.
    ///
    /// Its output goes to files, not pipes: a pipe's write end can leak into a process another test starts at the
    /// same moment, and a reader waiting for the end of a pipe would then wait for that process too.
    static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        timeout: Double = 20
    ) throws
        -> CommandResult
    {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString.prefix(8))")
        let outputPath = base.path + ".out"
        let errorPath = base.path + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        process.standardInput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        // SIGKILL, not SIGTERM: the test runner's children inherit its ignored SIGTERM, so a program past its
        // deadline would never stop and the test would wait for it forever.
        let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        let ended = process.waitForExit()
        killer.cancel()
        return CommandResult(
            status: ended.status,
            output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "",
            elapsed: Date().timeIntervalSince(started)
        )
    }
}
