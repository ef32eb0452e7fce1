import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process the benchmark talks to in lines: commands written to its stdin, answers read from its stdout
/// with a deadline. Its stderr goes to a log file, whose tail a failure quotes.
final class LineProcess {
    let name: String
    let logPath: String
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered: [UInt8] = []

    init(name: String, _ arguments: [String], environment: [String: String], logPath: String) throws {
        self.name = name
        self.logPath = logPath
        process.standardError = process.prepare(arguments, environment: environment, logPath: logPath)
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit { stop() }

    var pid: Int32 { process.processIdentifier }

    func send(_ line: String) throws {
        do {
            try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        } catch {
            throw BenchError.failed("\(name) stopped reading its commands; its log:\n\(logTail())")
        }
    }

    /// The next line it prints, without its newline; fails past `timeout` seconds or at the end of its output.
    func readLine(timeout: Double) throws -> String {
        let deadline = Clock.now + timeout
        let descriptor = output.fileHandleForReading.fileDescriptor
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<end], as: UTF8.self)
                buffered.removeSubrange(...end)
                return line
            }
            let left = deadline - Clock.now
            guard left > 0 else {
                throw BenchError.failed("\(name) did not answer in \(timeout) s; its log:\n\(logTail())")
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { throw BenchError.failed("\(name) exited; its log:\n\(logTail())") }
            buffered += chunk[..<count]
        }
    }

    /// Sends `command` and returns its answer; an answer starting with `error` fails with it.
    @discardableResult
    func ask(_ command: String, timeout: Double) throws -> String {
        try send(command)
        let answer = try readLine(timeout: timeout)
        if answer.hasPrefix("error") { throw BenchError.failed("\(name): \(command): \(answer)") }
        return answer
    }

    /// Closes its input (the end of its commands), then SIGTERM, then SIGKILL, each after a few seconds.
    func stop() {
        try? input.fileHandleForWriting.close()
        ChildProcess.end(process)
    }

    func logTail() -> String {
        ChildProcess.tail(logPath)
    }
}
