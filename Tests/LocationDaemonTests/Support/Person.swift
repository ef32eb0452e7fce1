import Foundation
import JSON
import LocationTestSupport
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// One person at the machine: `Scripts/person.py` run as an ordinary user (through `setpriv`), with as many
/// connections as that person's apps, agent and settings screen need (SEMANTICS §15).
final class Person {
    let uid: UInt32
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private lazy var reader = LineReader(output)
    /// Frames read but not yet taken, by connection.
    private var pending: [Int: [VarlinkReply]] = [:]
    private var closed: Set<Int> = []

    init(socket: String, uid: UInt32) throws {
        self.uid = uid
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/person.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", script, socket,
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.signalAndWait(SIGKILL) }
    }

    /// Sends a call on connection `connection` and returns its first reply.
    @discardableResult
    func call(
        _ connection: Int,
        _ method: String,
        _ parameters: JSONObject = [:],
        more: Bool = false
    ) throws -> VarlinkReply {
        send(connection, method, parameters, more: more)
        return try next(on: connection)
    }

    /// Sends a call and does not wait: a stream whose replies come later, or a call answered after another event.
    func send(_ connection: Int, _ method: String, _ parameters: JSONObject = [:], more: Bool = false) {
        var call: JSONObject = ["method": .string(method), "parameters": .object(parameters)]
        if more { call["more"] = .bool(true) }
        input.fileHandleForWriting.write(Data("\(connection) \(JSONValue.object(call).serialized)\n".utf8))
    }

    /// The next frame locd sent on `connection`, waiting up to `timeout`.
    func next(on connection: Int, timeout: Double = 10) throws -> VarlinkReply {
        let deadline = Date().addingTimeInterval(timeout)
        while pending[connection, default: []].isEmpty {
            guard !closed.contains(connection) else { throw PersonFailed.closed(uid: uid, connection: connection) }
            guard let line = reader.next(by: deadline) else {
                throw PersonFailed.noReply(uid: uid, connection: connection)
            }
            take(line)
        }
        return pending[connection]!.removeFirst()
    }

    func close(_ connection: Int) {
        input.fileHandleForWriting.write(Data("close \(connection)\n".utf8))
    }

    private func take(_ line: String) {
        guard case .object(let object)? = JSONValue.parse(Array(line.utf8)),
            let connection = object["connection"]?.intValue.map(Int.init)
        else { return }
        if object["closed"] == .bool(true) {
            closed.insert(connection)
        } else if let frame = object["frame"], let reply = VarlinkReply.decode(Array(frame.serialized.utf8)) {
            pending[connection, default: []].append(reply)
        }
    }
}

enum PersonFailed: Error, CustomStringConvertible {
    case noReply(uid: UInt32, connection: Int)
    case closed(uid: UInt32, connection: Int)

    var description: String {
        switch self {
        case .noReply(let uid, let connection): "uid \(uid): no reply on connection \(connection) in time"
        case .closed(let uid, let connection): "uid \(uid): locd closed connection \(connection)"
        }
    }
}
