import Foundation
import LocationTestSupport
import Testing

/// `locctl simulate`: the real binary on the shipped scenarios, with no daemon anywhere.
@Suite("locctl simulate")
struct SimulateCommandTests {
    private static let root = URL(fileURLWithPath: Repository.root())

    private func locctl(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        let bundle = URL(fileURLWithPath: DaemonProcess.binary).deletingLastPathComponent()
        process.executableURL = bundle.appendingPathComponent("locctl")
        process.arguments = arguments
        // A socket nobody listens on: simulate must not need one.
        process.environment = ["LOCD_SOCKET": "/nonexistent/io.locd"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    private func expected(_ name: String) throws -> String {
        let url = Self.root.appendingPathComponent("Tests/LocationSimulationTests/Expected/\(name)")
        return String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }

    @Test("P2, L5: locctl simulate prints seed 000's timeline as its expected table and JSON, with no daemon")
    func printsTimeline() throws {
        let scenario = Self.root.appendingPathComponent("config/scenarios/000-allow-once.toml").path
        let table = try locctl(["simulate", scenario])
        #expect(table.status == 0)
        #expect(table.errors.isEmpty)
        #expect(table.output == (try expected("000-allow-once.txt")))
        let json = try locctl(["simulate", "--json", scenario])
        #expect(json.status == 0)
        #expect(json.output == (try expected("000-allow-once.json")))
    }

    @Test("locctl simulate: a broken scenario exits 1 naming file, line, key and what is allowed")
    func brokenScenario() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locd-simulate-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("broken.toml")
        let text = """
            [apps."com.ex.maps"]
            NSLocationWhenInUseUsageDescription = "Shows you on the map"

            [[events]]
            at = 0.0
            app = "com.ex.maps"
            event = "fly"
            """
        try Data(text.utf8).write(to: file)
        let result = try locctl(["simulate", file.path])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(
            result.errors.hasPrefix("locctl: \(file.path):7: key events[1].event: unknown event \"fly\"; allowed: ")
        )

        let missing = try locctl(["simulate", directory.appendingPathComponent("absent.toml").path])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("absent.toml: cannot read this file"))
    }
}
