import Foundation
import JSON
import LocationTestSupport
import NIOCore
import Testing

@testable import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// `VarlinkAsyncClient.connect(path:first:passing:)`, a broker's connection: the first call goes out with the
/// descriptor in one `sendmsg` from the caller's thread, and NIO reads the reply (SEMANTICS I8, I10).
@Suite("Brokered connect", .serialized)
struct BrokeredConnectTests {
    @Test("I10: the first call carries the descriptor in its sendmsg; the reply comes back, the connection stays")
    func firstCallCarriesDescriptor() async throws {
        let server = try OneConnectionServer { frame, descriptors in
            #expect(descriptors == 1, "descriptors passed with the call: \(descriptors)")
            #expect(frame.contains("io.test.Hello"), "\(frame)")
            return #"{"parameters":{"ok":true}}"#
        }
        let (client, reply) = try await VarlinkAsyncClient.connect(
            path: server.path,
            first: VarlinkCall(method: "io.test.Hello", parameters: [:]),
            passing: STDIN_FILENO
        )
        #expect(reply["ok"] == .bool(true))
        #expect(client.isActive)
        client.close()
        server.finish()
    }

    @Test("I8: an error reply to the first call throws it, and a server that never answers times out")
    func errorAndSilence() async throws {
        let refusing = try OneConnectionServer { _, _ in #"{"error":"io.test.Refused","parameters":{}}"# }
        await #expect(throws: VarlinkError.self) {
            _ = try await VarlinkAsyncClient.connect(
                path: refusing.path,
                first: VarlinkCall(method: "io.test.Hello", parameters: [:]),
                passing: STDIN_FILENO
            )
        }
        refusing.finish()
        let silent = try OneConnectionServer { _, _ in nil }
        let started = Date()
        await #expect(throws: VarlinkClient.ClientError.timedOut) {
            _ = try await VarlinkAsyncClient.connect(
                path: silent.path,
                first: VarlinkCall(method: "io.test.Hello", parameters: [:]),
                passing: STDIN_FILENO,
                timeout: .milliseconds(300)
            )
        }
        #expect(Date().timeIntervalSince(started) >= 0.29)
        // The client closed the connection it timed out on.
        #expect(silent.peerClosed(within: 10))
        silent.finish()
    }

    @Test("I8: nothing listening is a connect error, at once")
    func nothingListening() async throws {
        let directory = try TemporaryDirectory(prefix: "brokered")
        defer { directory.remove() }
        await #expect(throws: VarlinkClient.ClientError.self) {
            _ = try await VarlinkAsyncClient.connect(
                path: directory.at("none.sock"),
                first: VarlinkCall(method: "io.test.Hello", parameters: [:]),
                passing: STDIN_FILENO
            )
        }
    }
}

/// A listening Unix socket that accepts one connection on a thread of its own, reads one frame as the daemon does
/// (counting the descriptors passed with it), and answers with what `answer` returns (nothing for `nil`).
private final class OneConnectionServer: @unchecked Sendable {
    // @unchecked: `connection` is written by the server thread before `accepted` is signalled, then read after.
    let path: String
    private let directory: TemporaryDirectory
    private let listener: Int32
    private var connection: Int32 = -1
    private let accepted = DispatchSemaphore(value: 0)

    init(answer: @escaping @Sendable (String, Int) -> String?) throws {
        directory = try TemporaryDirectory(prefix: "brokered")
        path = directory.at("server.sock")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(listener, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
        Thread { [self] in
            let connection = accept(listener, nil, nil)
            self.connection = connection
            accepted.signal()
            guard connection >= 0 else { return }
            let (frame, descriptors) = Self.receive(connection)
            if let reply = answer(frame, descriptors) {
                let bytes = Array(reply.utf8) + [0]
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
        }.start()
    }

    /// The call, read as the daemon reads an identifying call (``CredentialedRead``): its text up to the NUL, and
    /// how many descriptors came with it (closed here).
    private static func receive(_ connection: Int32) -> (String, Int) {
        var poller = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 10_000) > 0,
            case .bytes(let bytes, _, let passed) = CredentialedRead.receive(descriptor: connection, capacity: 65_536)
        else { return ("", 0) }
        return (String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self), passed.descriptors.count + passed.dropped)
    }

    /// Waits until the connection is accepted (or accepting failed), as often as asked.
    private func waitForAccept() {
        accepted.wait()
        accepted.signal()
    }

    /// Whether the client closed its end within `seconds`.
    func peerClosed(within seconds: Double) -> Bool {
        waitForAccept()
        var poller = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(seconds * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(connection, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
    }

    func finish() {
        waitForAccept()
        if connection >= 0 { close(connection) }
        close(listener)
        directory.remove()
    }
}
