import Foundation
import LocationTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A real gpsd fed by `gpsfake` from a recorded NMEA route, on a free TCP port of 127.0.0.1.
///
/// gpsfake runs in a process group of its own (with the gpsd it starts), so that stopping it by that group
/// leaves nothing behind; it needs Debian's `/usr/bin/python3`, which has the `gps` module, and a `TMPDIR`
/// for the socket it leaves.
final class GPSFake {
    static let executable = "/usr/bin/gpsfake"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    private(set) var port = 0
    let directory: URL
    private(set) var pid: pid_t = 0

    /// Starts gpsfake on `route`, one sentence every `cycle` seconds, and waits until gpsd answers on its port
    /// (the probe connection starts the replay: gpsfake waits for a first client). The port is one the kernel
    /// picked as free, which another test's server may take first: then gpsd cannot listen, gpsfake exits, and it
    /// starts again on another port, three times at most.
    init(route: String, cycle: Double = 0.2) throws {
        directory = URL(fileURLWithPath: try TemporaryDirectory(prefix: "gpsfake").path)
        var attempt = 0
        while true {
            attempt += 1
            port = try Self.freePort()
            let log = directory.appendingPathComponent("gpsfake.log").path
            let arguments = ["/usr/bin/python3", Self.executable, "-P", "\(port)", "-c", "\(cycle)", route]
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = directory.path
            pid = try Self.spawnInOwnGroup(arguments, environment: environment, output: log)
            let deadline = Date().addingTimeInterval(20)
            while !Self.answersAsGPSD(port: port) && Date() < deadline && Self.isAlive(pid) {
                usleep(20_000)
            }
            if Self.answersAsGPSD(port: port) { return }
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            stop()
            guard attempt < 3 else {
                throw GPSFakeFailed(description: "gpsd did not listen on port \(port); gpsfake said: \(output)")
            }
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops gpsfake and its gpsd: SIGTERM to the whole group, SIGKILL if gpsfake has not exited within
    /// five seconds, then whatever of the group is left (the group is ours alone).
    func stop() {
        guard pid > 0 else { return }
        kill(-pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(5)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(-pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(10_000)
        }
        kill(-pid, SIGKILL)
        pid = 0
    }

    private static func spawnInOwnGroup(
        _ arguments: [String],
        environment: [String: String],
        output: String
    ) throws
        -> pid_t
    {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own, and the default signal mask and handlers: the test's threads block signals,
        // and a child that inherited that would never see the SIGTERM that stops it.
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        )
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw GPSFakeFailed(description: "cannot start gpsfake: \(String(cString: strerror(result)))")
        }
        return pid
    }

    private static func isAlive(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// Whether gpsd listens on 127.0.0.1:`port`: it greets every client with its `VERSION` object. A connection
    /// alone proves nothing: another server may hold the port, and a probe whose own ephemeral port is `port`
    /// connects to itself.
    static func answersAsGPSD(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return false }
        var greeting: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(2)
        while !String(decoding: greeting, as: UTF8.self).contains("\"class\":\"VERSION\"") {
            let left = deadline.timeIntervalSinceNow
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { return false }
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return false }
            greeting.append(contentsOf: chunk[..<count])
        }
        return true
    }

    /// A TCP port of 127.0.0.1 that nothing listens on now (the kernel's pick).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw GPSFakeFailed(description: "cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        return address
    }
}

struct GPSFakeFailed: Error, CustomStringConvertible {
    var description: String
}
