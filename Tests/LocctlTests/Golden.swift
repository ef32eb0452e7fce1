import Foundation
import JSON
import Testing
import Varlink

/// Fixed Admin replies and the output locctl must print for them.
///
/// `LOCCTL_UPDATE_GOLDEN=1` rewrites the golden files from the current output (review the diff);
/// without it a difference fails the test and shows both texts.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures"
    )

    /// A fixture file parsed as JSON.
    static func fixture(_ name: String) throws -> JSONValue {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        return try #require(JSONValue.parse(Array(data)), "\(name) is not valid JSON")
    }

    /// A fixture that is a reply's parameters.
    static func reply(_ name: String) throws -> JSONObject {
        try #require(try fixture(name).objectValue, "\(name) is not a JSON object")
    }

    /// Compares `actual` with the golden file `name`.
    static func check(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent("golden").appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["LOCCTL_UPDATE_GOLDEN"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, "golden \(name) differs; got:\n\(actual)", sourceLocation: sourceLocation)
    }

    /// UTC, so wall-clock times in golden files do not depend on the machine's zone.
    static let utc = TimeZone(identifier: "UTC")!
}
