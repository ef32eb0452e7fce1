import Foundation
import JSON
import LocationTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The Swift that README and USAGE show an app author, taken from the documents as they are, built the way they say
/// (an app package depending on locd by path with `traits: []`) and run against the real daemon.
@Suite("Documented Swift program", .serialized)
struct DocumentedProgramTests {
    static let root = Repository.root()
    /// Kept across runs under `.build`, so that only the first run builds SwiftNIO: `locd` is a symbolic link to the
    /// checkout, so that the documented `../locd` resolves unchanged from the app's package `MyApp`.
    static let place = root + "/.build/docs-example"

    @Test(
        "README, USAGE: the Swift program builds with USAGE's Package.swift, resolving SwiftNIO alone, and runs to its end"
    )
    func documentedProgram() async throws {
        let readme = try SwiftBlocks(file: Self.root + "/README.md")
        let usage = try SwiftBlocks(file: Self.root + "/docs/USAGE.md")
        let programs = readme.programs + usage.programs
        try #require(!readme.programs.isEmpty && !usage.programs.isEmpty, "no `import LocationClient` block found")
        let manifest = try #require(usage.manifests.first, "USAGE shows no Package.swift")
        #expect(usage.manifests.count == 1 && readme.manifests.isEmpty)
        #expect(Set(programs).count == 1, "README and USAGE show the same program")

        let app = try Self.makeApp(manifest: manifest)
        for program in Set(programs) {
            let built = try await Self.build(app, main: program)
            try await Self.runToCompletion(built)
        }
    }

    /// `place/MyApp` with `manifest` as its Package.swift, beside `place/locd`, the checkout.
    private static func makeApp(manifest: String) throws -> String {
        let files = FileManager.default
        let app = place + "/MyApp"
        try files.createDirectory(atPath: app + "/Sources/MyApp", withIntermediateDirectories: true)
        if (try? files.destinationOfSymbolicLink(atPath: place + "/locd")) != root {
            try? files.removeItem(atPath: place + "/locd")
            try files.createSymbolicLink(atPath: place + "/locd", withDestinationPath: root)
        }
        try write(manifest, to: app + "/Package.swift")
        return app
    }

    /// Writes `program` as the app's main.swift and builds it; returns the executable.
    ///
    /// The build runs at a lower priority (`nice`): a first one compiles SwiftNIO for a minute or more, and the
    /// suites that run beside it wait for deadlines of their own.
    private static func build(_ app: String, main program: String) async throws -> String {
        try write(program, to: app + "/Sources/MyApp/main.swift")
        let log = app + "/build.log"
        let build = ["nice", "-n", "10", "swift", "build", "--package-path", app]
        let status = try await run(build, log: log, timeout: 1200)
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try #require(status == 0, "swift build of the documented app failed:\n\(said.suffix(4000))")
        // Resolved: SwiftNIO and what it needs, nothing of the daemon's (the Daemon trait is off).
        let resolved = try JSONValue.parse(Array(Data(contentsOf: URL(fileURLWithPath: app + "/Package.resolved"))))
        let pins = resolved?["pins"]?.arrayValue?.compactMap { $0["identity"]?.stringValue }.sorted()
        #expect(pins == ["swift-atomics", "swift-collections", "swift-nio", "swift-system"])
        return app + "/.build/debug/MyApp"
    }

    /// Runs the program as the demo's maps app, an agent answering its prompt, until it exits by itself.
    private static func runToCompletion(_ executable: String) async throws {
        let manifest = try String(contentsOfFile: root + "/config/apps.d/com.example.maps.toml", encoding: .utf8)
        // A relaunch window longer than the test: a session the program left behind would still be listed after.
        let daemon = try DaemonProcess(
            manifests: ["com.example.maps": manifest],
            settings: DaemonProcess.lifecycle(relaunchWindow: 600)
        )
        try daemon.start()
        let tools = URL(fileURLWithPath: DaemonProcess.binary).deletingLastPathComponent()
        let agent = Process()
        agent.executableURL = tools.appendingPathComponent("locctl")
        agent.arguments = ["agent", "--answer", "allowWhileUsing", "--socket", daemon.socketPath]
        agent.standardOutput = FileHandle.nullDevice
        agent.standardError = FileHandle.nullDevice
        try agent.run()
        defer {
            agent.signalAndWait(SIGTERM)
        }
        try #require(
            try await eventually(timeout: 20) {
                try daemon.connect().call("io.locd.Admin.Status")["status"]?["agents"] == .int(1)
            }
        )

        let output = daemon.directory.appendingPathComponent("program.out").path
        let status = try await run(
            [executable],
            log: output,
            timeout: 60,
            environment: ["LOCD_SOCKET": daemon.socketPath]
        )
        let printed = try String(contentsOfFile: output, encoding: .utf8)
        #expect(status == 0, "\(printed)")
        let lines = printed.split(separator: "\n")
        #expect(lines.first == "allowed", "\(printed)")
        #expect(lines.count == 2 && lines[1].hasPrefix("at 35.68"), "\(printed)")
        // Goodbye ended its session: nothing of the app lingers once it has exited.
        let sessions = try daemon.connect().call("io.locd.Admin.ListSessions", ["appId": .string("com.example.maps")])
        #expect(sessions["sessions"] == .array([]))
    }

    /// Runs `command` (found on the PATH) with its output in `log`, for at most `timeout` seconds; its exit status.
    /// It waits with `Task.sleep`, holding no thread of the pool the other suites' tests run on.
    private static func run(
        _ command: [String],
        log: String,
        timeout: Double,
        environment: [String: String] = [:]
    ) async throws -> Int32 {
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Polled with a deadline: a program that never ends fails the test instead of hanging it.
        let ended = try await eventually(timeout: timeout, every: 0.1) { !process.isRunning }
        if !ended { kill(process.processIdentifier, SIGKILL) }
        let status = process.waitForExit().status
        #expect(ended, "\(command.joined(separator: " ")) still ran after \(Int(timeout)) s")
        return status
    }

    /// Writes `text` unless the file already holds it, so that an unchanged app is not rebuilt.
    private static func write(_ text: String, to path: String) throws {
        if (try? String(contentsOfFile: path, encoding: .utf8)) == text { return }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}

/// The fenced `swift` blocks of a Markdown file: the programs (`import LocationClient`) and the package manifests
/// (`import PackageDescription`).
struct SwiftBlocks {
    var programs: [String] = []
    var manifests: [String] = []

    init(file: String) throws {
        var block: [Substring]?
        for line in try String(contentsOfFile: file, encoding: .utf8).split(
            separator: "\n",
            omittingEmptySubsequences: false
        ) {
            if block == nil, line == "```swift" {
                block = []
            } else if let lines = block, line == "```" {
                let text = lines.joined(separator: "\n") + "\n"
                if text.contains("import PackageDescription") { manifests.append(text) }
                if text.contains("import LocationClient") { programs.append(text) }
                block = nil
            } else if block != nil {
                block?.append(line)
            }
        }
    }
}
