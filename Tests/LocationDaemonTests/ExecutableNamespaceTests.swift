import Foundation
import LocationTestSupport
import Testing
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS I1, M5 against a user who builds a root of their own: the path `/proc/PID/exe` shows is the one in the
/// process's mount namespace, so a program of theirs at a manifest's path is not that program.
@Suite("Executables in a namespace of the caller's own", .serialized)
struct ExecutableNamespaceTests {
    private static let python = ExecutableManifests.python
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Scripts/raw_client.py").path

    /// What `nobody` builds: a user and mount namespace whose root (a tmpfs at `root`) holds a copy of python at
    /// python's own path, the system's libraries and `shared` (the daemon's directory, with the socket) at their
    /// paths; it then makes that root its own (pivot_root) and runs the copy.
    private static let impostor = """
        set -e
        root=$1 shared=$2 python=$3 script=$4
        shift 4
        mount -t tmpfs none "$root"
        mkdir -p "$root/usr/lib" "$root/lib" "$root/lib64" "$root/${python%/*}" "$root$shared" "$root/old"
        for d in usr/lib lib lib64; do mount --rbind "/$d" "$root/$d"; done
        mount --rbind "$shared" "$root$shared"
        cp "$python" "$root$python"
        cd "$root"
        pivot_root . old
        exec "$python" "$script" "$@"
        """

    /// Whether the attack can be made here: the test runs as root with setpriv, and `nobody` may make a user and
    /// mount namespace (a kernel or sysctl may forbid unprivileged ones; then no user can build such a root).
    static var namespacesAllowed: Bool {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
        else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        probe.arguments = [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/unshare", "-r", "-m", "/bin/true",
        ]
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    private func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test(
        "I1, M5: nobody's copy of python at python's path, in a root of their own, is refused as the app; the real python is taken",
        .enabled(if: ExecutableNamespaceTests.namespacesAllowed)
    )
    func copyAtTheSamePathIsNotTheProgram() throws {
        let manifest = """
            id = "com.ex.python"
            identity = "executable"
            executables = ["/usr/bin/python3"]
            NSLocationWhenInUseUsageDescription = "Python"
            """
        let daemon = try DaemonProcess(manifests: ["com.ex.python": manifest])
        try daemon.start()
        let shared = daemon.directory.path
        chmod(shared, 0o755)
        let script = shared + "/raw_client.py"
        try FileManager.default.copyItem(atPath: Self.script, toPath: script)
        chmod(script, 0o644)
        let scratch = try TemporaryDirectory(prefix: "locd-root")
        defer { scratch.remove() }
        chmod(scratch.path, 0o755)
        let root = scratch.at("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let hello = #"{"method":"io.locd.App.Hello","parameters":{"appId":"com.ex.python"}}"#
        // The real python of nobody, as the control: taken as the app.
        let honest = try run([Self.python, script, daemon.socketPath, hello])
        #expect(honest.contains("\"authorization\""), "\(honest)")
        // The copy, which /proc/PID/exe shows at python's path.
        let attack = try run(
            ["/usr/bin/unshare", "-r", "-m", "/bin/sh", "-c", Self.impostor, "sh", root, shared, Self.python, script]
                + [daemon.socketPath, hello]
        )
        #expect(attack.contains("PermissionDenied"), "\(attack)")
        #expect(!attack.contains("\"authorization\""), "\(attack)")
        #expect(daemon.logSoFar.contains("not the file at that path"), "\(daemon.logSoFar)")
    }
}
