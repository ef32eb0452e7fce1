import Foundation
import LocationTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `Scripts/hold_connections.py` run as another user (through `setpriv`): opens and holds connections on
/// command, and says for each whether locd served it or refused it with which limit.
final class ConnectionHolder {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private lazy var reader = LineReader(output)

    /// - Parameters:
    ///   - uid: the user (and group) the script runs as.
    ///   - replyTimeout: how long each connection waits for locd's reply before it counts as "timeout".
    init(socket: String, uid: UInt32, replyTimeout: Double = 3) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/hold_connections.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", script, socket,
            "\(replyTimeout)",
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.signalAndWait(SIGKILL) }
    }

    /// Opens `count` connections one after the other; what became of each ("ok", "io.locd.App.LimitExceeded
    /// max-connections-per-uid", "closed", "timeout").
    func open(_ count: Int, timeout: Double = 60) throws -> [String] {
        try command("open \(count)", timeout: timeout)
    }

    /// Closes `count` of the served connections, oldest first.
    func close(_ count: Int) throws {
        _ = try command("close \(count)", timeout: 10)
    }

    private func command(_ text: String, timeout: Double) throws -> [String] {
        input.fileHandleForWriting.write(Data((text + "\n").utf8))
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while let line = reader.next(by: deadline) {
            if line == "done" { return lines }
            lines.append(line)
        }
        throw HolderFailed(command: text, lines: lines)
    }
}

/// The script did not finish a command in time, or exited.
struct HolderFailed: Error, CustomStringConvertible {
    var command: String
    var lines: [String]
    var description: String { "hold_connections.py did not finish \"\(command)\"; printed \(lines)" }
}
