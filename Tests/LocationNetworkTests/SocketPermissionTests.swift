import Foundation
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS U27: locd-network started with `--socket` under a permissive umask, while another user tries to
/// connect as fast as it can from before the socket exists.
@Suite("locd-network's socket", .serialized)
struct SocketPermissionTests {
    /// `nobody`'s side, stdlib Python: connects to the path again and again until its input ends, then prints how
    /// each attempt ended ("connected=N ENOENT=N …"). It says "trying" once its loop runs.
    static let connectLoop = #"""
        import errno, select, socket, sys
        path, counts, attempts = sys.argv[1], {}, 0
        print("trying", flush=True)
        while True:
            attempt = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                attempt.connect(path)
                outcome = "connected"
            except OSError as error:
                outcome = errno.errorcode.get(error.errno, str(error.errno))
            attempt.close()
            counts[outcome] = counts.get(outcome, 0) + 1
            attempts += 1
            if attempts % 32 == 0 and select.select([sys.stdin], [], [], 0)[0]:
                break
        print(" ".join("%s=%d" % item for item in sorted(counts.items())), flush=True)
        """#

    /// Starts locd-network on `socket` under umask 000, `nobody` trying to connect all the while; how nobody's
    /// attempts ended.
    /// - Parameter window: microseconds the process is held right after `listen` (by `strace`), as a loaded
    ///   machine may hold it there: whatever the socket's mode is then, nobody has all that time to connect.
    private func start(socket: String, directory: String, window: Int?) throws -> [String: Int] {
        let attacker = Process()
        attacker.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        attacker.arguments = [
            "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", Self.connectLoop, socket,
        ]
        let commands = Pipe()
        let answers = Pipe()
        attacker.standardInput = commands
        attacker.standardOutput = answers
        try attacker.run()
        defer { attacker.waitForExit() }
        let lines = answers.fileHandleForReading
        #expect(String(decoding: lines.readLine(), as: UTF8.self) == "trying")

        let notify = try NotifySocket(path: directory + "/notify")
        let network = Process()
        network.executableURL = URL(fileURLWithPath: "/bin/sh")
        let held =
            window.map {
                [
                    "strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=listen", "-e",
                    "inject=listen:delay_exit=\($0)",
                ]
            } ?? []
        network.arguments =
            ["-c", #"umask 000; exec "$@""#, "sh"] + held + [
                NetworkLocationProcess.binary, "--socket", socket, "--log-level", "debug",
            ]
        network.environment = NetworkLocationProcess.environment(
            notify: notify.path,
            bus: "unix:path=\(directory)/no-bus"
        )
        network.standardOutput = FileHandle.nullDevice
        network.standardError = FileHandle.nullDevice
        try network.run()
        defer {
            // strace ignores SIGTERM: locd-network, its child then, is the one to stop.
            let child =
                (try? String(
                    contentsOfFile: "/proc/\(network.processIdentifier)/task/\(network.processIdentifier)/children",
                    encoding: .utf8
                ))
                .flatMap { Int32($0.split(separator: " ").first ?? "") }
            kill(window == nil ? network.processIdentifier : child ?? network.processIdentifier, SIGTERM)
            network.waitForExit()
        }
        try notify.waitFor("READY=1", timeout: 20, while: { network.isRunning })

        // Served: root reaches it, and the socket and the directory it made are closed to others.
        let root = try VarlinkClient(path: socket, timeout: 10)
        #expect(try root.call("org.varlink.service.GetInfo")["product"] == .string("locd-network"))
        var information = stat()
        #expect(lstat(socket, &information) == 0 && information.st_mode & 0o777 == 0o600)
        #expect(stat((socket as NSString).deletingLastPathComponent, &information) == 0)
        #expect(information.st_mode & 0o022 == 0, "locd-network made a directory others may write to")

        try commands.fileHandleForWriting.close()
        let summary = String(decoding: lines.readLine(), as: UTF8.self)
        var outcomes: [String: Int] = [:]
        for item in summary.split(separator: " ") {
            let parts = item.split(separator: "=")
            if parts.count == 2 { outcomes[String(parts[0])] = Int(parts[1]) }
        }
        return outcomes
    }

    @Test(
        "U27: under umask 000, nobody connecting in a tight loop from before the bind never reaches locd-network",
        .enabled(if: getuid() == 0, "running the attacker as nobody needs root")
    )
    func neverOpenToOthers() throws {
        let directory = try TemporaryDirectory(prefix: "locd-network-umask")
        defer { directory.remove() }
        // nobody may pass through to where the socket goes, as to /run/locd; the last directory locd-network makes.
        chmod(directory.path, 0o755)
        let socket = directory.at("run/network.sock")
        var windows: [Int?] = Array(repeating: nil, count: 8)
        // Held open for 0.2 s, the moment between binding and setting the mode is no longer a race: before U27
        // nobody connected every time.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") { windows += [200_000, 200_000] }
        var attempts = 0
        for window in windows {
            let outcomes = try start(socket: socket, directory: directory.path, window: window)
            #expect(outcomes["connected", default: 0] == 0, "nobody connected (held \(window ?? 0) µs): \(outcomes)")
            attempts += outcomes.values.reduce(0, +)
            unlink(socket)
        }
        #expect(attempts > 100 * windows.count, "nobody tried only \(attempts) times")
    }
}

extension FileHandle {
    /// The bytes up to the next newline, without it; what is left at the end of the stream.
    fileprivate func readLine() -> Data {
        var line = Data()
        while let byte = try? read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        return line
    }
}
