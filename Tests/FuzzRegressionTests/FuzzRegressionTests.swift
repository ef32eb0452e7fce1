import Foundation
import FuzzTargets
import LocationTestSupport
import Testing

/// Every seed and every input a fuzzer ever crashed on, run through its target in the ordinary suite: bad
/// input never crashes locd (PROTOCOL "Limits and bad input", M1), and a crash once fixed stays fixed.
@Suite("Fuzz corpus and regressions")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: Repository.root()).appendingPathComponent("Fuzz")

    static func inputs(_ target: FuzzTarget, in folder: String) -> [URL] {
        let directory = root.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test("PROTOCOL, M1: every seed of every fuzz target runs without a crash", arguments: FuzzTarget.allCases)
    func seeds(_ target: FuzzTarget) throws {
        let seeds = Self.inputs(target, in: "corpus")
        #expect(!seeds.isEmpty, "Fuzz/corpus/\(target.rawValue) has no seeds")
        for seed in seeds { target.run(Array(try Data(contentsOf: seed))) }
    }

    @Test("PROTOCOL, M1: every input a fuzzer once crashed on runs without a crash", arguments: FuzzTarget.allCases)
    func regressions(_ target: FuzzTarget) throws {
        for input in Self.inputs(target, in: "regressions") { target.run(Array(try Data(contentsOf: input))) }
    }

    @Test("PROTOCOL: random bytes through every target, a thousand times each", arguments: FuzzTarget.allCases)
    func randomBytes(_ target: FuzzTarget) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let count = Int.random(in: 0..<256, using: &generator)
            target.run((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
    }
}
