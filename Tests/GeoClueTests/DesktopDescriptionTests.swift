import Foundation
import LocationTestSupport
import Testing

@testable import LocationGeoClue

/// The description locd-geoclue passes with `Hello` for an app locd may have no manifest for: the app's own words,
/// from its `.desktop` file.
@Suite("GeoClue2: the description of an app from its desktop file")
struct DesktopDescriptionTests {
    private func reader(_ files: [String: String]) throws -> (DesktopDescription, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "applications")
        for (name, text) in files { try text.write(toFile: directory.at(name), atomically: true, encoding: .utf8) }
        return (DesktopDescription(directories: ["/nonexistent", directory.path]), directory)
    }

    @Test("I11: Comment of [Desktop Entry], else Name; localised keys and other groups are not read")
    func commentThenName() throws {
        let (reader, directory) = try reader([
            "org.example.Maps.desktop": """
            [Desktop Entry]
            Name=Maps
            Comment[de]=Karten
            Comment = Find places near you
            [Desktop Action New]
            Comment=Opens a window
            """,
            "org.example.Named.desktop": "[Desktop Action X]\nComment=not this\n[Desktop Entry]\nName=Named\n",
        ])
        defer { directory.remove() }
        #expect(reader.description(of: "org.example.Maps") == "Find places near you")
        #expect(reader.description(of: "org.example.Maps.desktop") == "Find places near you")
        #expect(reader.description(of: "org.example.Named") == "Named")
        #expect(reader.description(of: "org.example.Missing") == nil)
    }

    @Test("I11: an id that is no file name reads nothing; a value locd would refuse gives no description")
    func refusals() throws {
        let long = String(repeating: "x", count: DesktopDescription.maximumBytes + 1)
        let (reader, directory) = try reader([
            "escape.desktop": "[Desktop Entry]\nComment=\u{1B}[2Jcleared\nName=Escape\n",
            "long.desktop": "[Desktop Entry]\nComment=\(long)\n",
            "empty.desktop": "[Desktop Entry]\nComment=\n",
        ])
        defer { directory.remove() }
        // A Comment that could dress up the prompt is passed over for the Name.
        #expect(reader.description(of: "escape") == "Escape")
        #expect(reader.description(of: "long") == nil)
        #expect(reader.description(of: "empty") == nil)
        for bad in ["../escape", ".hidden", "a/b", "", "é"] { #expect(reader.description(of: bad) == nil, "\(bad)") }
    }
}
