import Foundation
import JSON
import LocationTestSupport
import Testing

/// `locctl simulate`: the real binary on the shipped scenarios, with no daemon anywhere.
@Suite("locctl simulate")
struct SimulateCommandTests {
    private static let root = URL(fileURLWithPath: Repository.root())

    /// `locctl` on a socket nobody listens on: simulate must not need one.
    private func locctl(_ arguments: [String]) throws -> LocctlBinary.Result {
        try LocctlBinary.run(arguments, socket: "/nonexistent/io.locd")
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
        // One line, as every locctl --json prints, holding the expected file's value.
        let json = try locctl(["simulate", "--json", scenario])
        #expect(json.status == 0)
        #expect(json.output.split(separator: "\n").count == 1)
        let printed = JSONValue.parse(Array(json.output.utf8))
        let golden = JSONValue.parse(Array(try expected("000-allow-once.json").utf8))
        #expect(printed != nil && printed == golden)
    }

    @Test("locctl simulate: a broken scenario exits 1 naming file, line, key and what is allowed")
    func brokenScenario() throws {
        let temporary = try TemporaryDirectory(prefix: "locd-simulate")
        defer { temporary.remove() }
        let directory = URL(fileURLWithPath: temporary.path)
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
