import Foundation
import LocationTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `Scripts/flood_unread.py` run as another user (through `setpriv`): opens many connections and pipelines one
/// call on each without ever reading a reply, until every socket is full.
final class UnreadFlood {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private lazy var reader = LineReader(output)

    /// - Parameters:
    ///   - uid: the user (and group) the script runs as.
    ///   - call: the call's JSON text, sent again and again on every connection.
    init(socket: String, uid: UInt32, connections: Int, call: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/flood_unread.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", script, socket, "\(connections)",
            call,
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.signalAndWait(SIGKILL) }
    }

    /// Waits for the script's line starting with `word` ("open", "flooding", "blocked"); the rest of the line.
    @discardableResult
    func waitFor(_ word: String, timeout: Double = 60) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        while let line = reader.next(by: deadline) {
            if line.hasPrefix(word) { return String(line.dropFirst(word.count)).trimmingCharacters(in: .whitespaces) }
            lines.append(line)
        }
        throw FloodFailed(waitingFor: word, lines: lines)
    }
}

/// The script did not say what was awaited in time, or exited.
struct FloodFailed: Error, CustomStringConvertible {
    var waitingFor: String
    var lines: [String]
    var description: String { "flood_unread.py never said \"\(waitingFor)\"; printed \(lines)" }
}
