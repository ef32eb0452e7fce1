import Foundation
import LocationProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Scenario 11: the administrator under another user's flood (SEMANTICS F19).
///
/// `nobody` opens ``connections`` connections (under its `max-connections-per-uid`) and pipelines
/// `GetInterfaceDescription` on each without reading a reply, until every socket is full: tens of thousands of
/// calls for locd to run. Meanwhile root asks `Admin.Status` ``samples`` times, on its open connection and on a
/// fresh one each time, as `locctl status` does: how long each takes, and how many calls locd ran between root's
/// previous reply and this one (`Admin.Status`'s `calls`).
struct FairnessScenario {
    var connections: Int
    var samples: Int
    /// A directory `nobody` may pass through to reach the daemon's socket.
    var directory: String

    struct Result {
        /// Root's open connection: call → reply.
        var open: Latencies
        /// A fresh connection: connect → reply.
        var fresh: Latencies
        /// The calls locd ran between root's previous reply and each of its replies, root's own call excluded.
        var waits: [Int]
    }

    /// `nobody`'s side: stdlib Python, as a local user would write it. It says `flooding` once every connection
    /// has calls to run, and holds the connections, unread, until its input ends.
    static let script = #"""
        import socket, sys
        path, count = sys.argv[1], int(sys.argv[2])
        frame = b'{"method":"\#(ServiceMethod.getInterfaceDescription.name)","parameters":{"interface":"\#(InterfaceName.service)"}}\0'
        batch = frame * (16384 // len(frame))
        connections = []
        for _ in range(count):
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(path)
            connection.setblocking(False)
            connections.append([connection, batch])
        def push(entry):
            try:
                written = entry[0].send(entry[1])
            except BlockingIOError:
                return 0
            entry[1] = entry[1][written:] or batch
            return written
        for entry in connections:
            push(entry)
        print("flooding", flush=True)
        import select, threading
        def keep_full():
            quiet = 0
            while quiet < 100:
                if sum([push(entry) for entry in connections]):
                    quiet = 0
                else:
                    quiet += 1
                    select.select([], [entry[0] for entry in connections], [], 0.01)
        threading.Thread(target=keep_full, daemon=True).start()
        sys.stdin.read()
        """#

    func run(_ daemon: DaemonUnderTest) throws -> Result {
        let flood = try LineProcess(
            name: "nobody's flood",
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                Self.script, daemon.socketPath, String(connections),
            ],
            environment: [:],
            logPath: directory + "/flood.log"
        )
        defer { flood.stop() }
        let line = try flood.readLine(timeout: 60)
        guard line == "flooding" else { throw BenchError.failed("nobody's flood said \"\(line)\"") }
        let admin = try StatusClient(path: daemon.socketPath)
        var result = Result(open: Latencies(), fresh: Latencies(), waits: [])
        var last = try admin.calls()
        for _ in 0..<samples {
            var start = Clock.nanoseconds
            let next = try admin.calls()
            result.open.record(nanoseconds: Clock.nanoseconds - start)
            result.waits.append(next - last - 1)
            start = Clock.nanoseconds
            let answered = try StatusClient(path: daemon.socketPath).calls()
            result.fresh.record(nanoseconds: Clock.nanoseconds - start)
            result.waits.append(answered - next - 1)
            last = answered
        }
        try daemon.checkAlive("nobody's flood")
        return result
    }
}

/// A blocking connection that asks `Admin.Status` and reads its `calls`.
private final class StatusClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        // Set last, once connected: a throw after every property is set runs deinit, which would close it again.
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError.system("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw BenchError.system("connect \(path)", code)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// `Admin.Status`'s `calls`.
    func calls() throws -> Int {
        let call = Wire.call(AdminMethod.status.name)
        guard call.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == call.count
        else { throw BenchError.system("send Admin.Status", errno) }
        while !buffer.contains(0) {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { throw BenchError.failed("locd closed root's connection") }
            buffer += chunk[..<count]
        }
        let end = buffer.firstIndex(of: 0) ?? buffer.endIndex
        let frame = buffer[..<end]
        buffer.removeSubrange(...end)
        guard let calls = Wire.number(after: "\"calls\":", in: frame) else {
            throw BenchError.failed("Admin.Status has no calls: \(String(decoding: frame.prefix(300), as: UTF8.self))")
        }
        return Int(calls)
    }
}
