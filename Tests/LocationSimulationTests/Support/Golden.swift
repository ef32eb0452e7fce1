import Foundation
import Testing

/// Expected output checked in beside the tests, compared byte for byte.
///
/// `LOCD_UPDATE_GOLDEN=1` rewrites the files instead of comparing; the rewritten files must then be read and
/// checked against the story they tell before they are committed.
enum Golden {
    /// The repository's root, found from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let scenarios = root.appendingPathComponent("config/scenarios")
    static let expected = root.appendingPathComponent("Tests/LocationSimulationTests/Expected")

    /// The shipped scenarios' file names, sorted.
    static var scenarioNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: scenarios.path)) ?? []
        return names.filter { $0.hasSuffix(".toml") }.sorted()
    }

    /// Compares `actual` with the expected file `name`, recording a line-by-line difference when they differ.
    static func check(_ actual: String, against name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let file = expected.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["LOCD_UPDATE_GOLDEN"] == "1" {
            try? FileManager.default.createDirectory(at: expected, withIntermediateDirectories: true)
            #expect(throws: Never.self, sourceLocation: sourceLocation) {
                try actual.write(to: file, atomically: true, encoding: .utf8)
            }
            return
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            Issue.record(
                "no expected file \(file.path): run with LOCD_UPDATE_GOLDEN=1, then check it against the scenario",
                sourceLocation: sourceLocation
            )
            return
        }
        let expectedText = String(decoding: data, as: UTF8.self)
        guard expectedText != actual else { return }
        Issue.record(
            "\(name) differs (- expected, + actual):\n\(difference(expectedText, actual))",
            sourceLocation: sourceLocation
        )
    }

    /// The lines that differ, each with its line number; equal lines are left out.
    static func difference(_ expected: String, _ actual: String) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var text = ""
        for index in 0..<max(old.count, new.count) {
            let before = index < old.count ? String(old[index]) : nil
            let after = index < new.count ? String(new[index]) : nil
            guard before != after else { continue }
            if let before { text += "\(index + 1)- \(before)\n" }
            if let after { text += "\(index + 1)+ \(after)\n" }
        }
        return text
    }
}
