import Foundation
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// A helper program beside a test (a stand-in service, a bus) that prints one JSON object a line and reads
/// commands on its standard input: its output goes to a file the test reads while it runs, and it is killed
/// when the test drops it.
package final class ScriptProcess: @unchecked Sendable {
    // @unchecked: `process` and `input` are set once in init; Process and FileHandle are used from one test.
    package let process = Process()
    package let logPath: String
    private let input = Pipe()

    /// The fixtures shared by the test targets: `Tests/LocationTestSupport/Fixtures/NAME`.
    package static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
            .appendingPathComponent(name).path
    }

    package init(_ arguments: [String], environment: [String: String] = [:], logPath: String) throws {
        self.logPath = logPath
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        process.standardInput = input
        try process.run()
    }

    deinit { kill9() }

    /// Everything it printed so far.
    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The lines it printed that are JSON objects, in order.
    package var objects: [JSONObject] {
        log.split(separator: "\n").compactMap { JSONValue.parse(Array($0.utf8))?.objectValue }
    }

    /// Sends one line to its standard input.
    package func send(_ line: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits until it printed an object for which `matches` holds, and returns the first; `nil` if it did not
    /// within `timeout` seconds, or exited.
    package func waitFor(timeout: Double = 20, _ matches: (JSONObject) -> Bool) -> JSONObject? {
        var found: JSONObject?
        _ = eventually(timeout: timeout, every: 0.02) {
            found = objects.first(where: matches)
            return found != nil || !process.isRunning
        }
        return found ?? objects.first(where: matches)
    }

    /// SIGKILL, and waits for the exit.
    package func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
