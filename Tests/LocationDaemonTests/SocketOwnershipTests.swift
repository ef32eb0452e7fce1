import Foundation
import LocationTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS R14: a socket a daemon listens on is its own until it stops.
@Suite("Socket ownership", .serialized)
struct SocketOwnershipTests {
    @Test("R14: a second locd on a live daemon's socket (another state dir) exits 73 naming it; it serves on")
    func secondDaemonOnALiveSocket() throws {
        let first = try DaemonProcess()
        try first.start()
        let published = try inode(first.socketPath)
        // Another daemon in every way (configuration, state directory, notify socket) but the socket path.
        let second = try DaemonProcess()

        let refused = try Self.runToExit(second, socket: first.socketPath)
        #expect(refused.status == 73, "stderr: \(refused.errors)")
        #expect(refused.errors.contains(first.socketPath), "stderr: \(refused.errors)")
        #expect(refused.errors.contains("locd (pid \(first.pid))"), "stderr: \(refused.errors)")
        #expect(refused.errors.contains("--socket"), "says where else to listen: \(refused.errors)")

        // The socket file is still the one the first bound, and `locctl status` reaches the first.
        #expect(try inode(first.socketPath) == published)
        let status = try LocctlBinary.run(["status"], socket: first.socketPath)
        #expect(status.status == 0, "\(status.errors)")
        #expect(status.output.contains("(pid \(first.pid))"), "\(status.output)")
    }

    @Test("R14: once the first locd stopped, its socket file is stale and a second locd replaces it")
    func secondDaemonAfterTheFirstStopped() throws {
        let first = try DaemonProcess()
        try first.start()
        let socket = first.socketPath
        #expect(first.stop() == 0)
        // What a stopped daemon leaves: a socket file that refuses connections.
        #expect(throws: (any Error).self) { _ = try first.connect() }
        var information = stat()
        #expect(lstat(socket, &information) == 0 && information.st_mode & S_IFMT == S_IFSOCK)

        let second = try DaemonProcess()
        try second.start(extraArguments: ["--socket", socket])
        let status = try LocctlBinary.run(["status"], socket: socket)
        #expect(status.status == 0, "\(status.errors)")
        #expect(status.output.contains("(pid \(second.pid))"), "\(status.output)")
    }

    @Test("R14: a file at the socket path that is not a socket is never replaced; locd exits 73 saying so")
    func notASocket() throws {
        let daemon = try DaemonProcess()
        let path = daemon.directory.appendingPathComponent("not-a-socket").path
        try "keep me\n".write(toFile: path, atomically: false, encoding: .utf8)

        let refused = try Self.runToExit(daemon, socket: path)
        #expect(refused.status == 73, "stderr: \(refused.errors)")
        #expect(refused.errors.contains("not a socket"), "stderr: \(refused.errors)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me\n")
    }

    /// Runs `daemon`'s configuration on `socket` until it exits (at most 20 s, then killed): its status and stderr.
    private static func runToExit(_ daemon: DaemonProcess, socket: String) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: DaemonProcess.binary)
        process.arguments = ["--config", daemon.configPath, "--socket", socket]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Polled with a deadline: a daemon that does not stop must fail the test, not hang it.
        _ = eventually(timeout: 20) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let ended = process.waitForExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (ended.status, said)
    }

    private func inode(_ path: String) throws -> UInt {
        var information = stat()
        try #require(lstat(path, &information) == 0, "nothing at \(path)")
        return UInt(information.st_ino)
    }
}
