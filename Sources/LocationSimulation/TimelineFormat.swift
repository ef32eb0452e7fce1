import Foundation

/// The two ways `locctl simulate` prints a timeline: a table for people, JSON for programs.
///
/// Both are byte-for-byte the same for the same timeline, so that expected output can be checked in.
package enum TimelineFormat {
    /// One line per entry: time in seconds (one decimal), app, subject (with the session's name or prompt's
    /// id), and what happened; columns padded to the widest value.
    package static func table(_ entries: [TimelineEntry]) -> String {
        let header = ["time", "app", "subject", "what"]
        let rows =
            [header]
            + entries.map { entry in
                [
                    Simulator.seconds(entry.time),
                    entry.app ?? "-",
                    entry.subject.rawValue + (entry.name.map { " " + $0 } ?? ""),
                    entry.what,
                ]
            }
        var widths = [0, 0, 0]
        for row in rows {
            for column in 0..<3 { widths[column] = max(widths[column], row[column].count) }
        }
        var text = ""
        for row in rows {
            let time = String(repeating: " ", count: widths[0] - row[0].count) + row[0]
            let app = row[1] + String(repeating: " ", count: widths[1] - row[1].count)
            let subject = row[2] + String(repeating: " ", count: widths[2] - row[2].count)
            text += "\(time)  \(app)  \(subject)  \(row[3])\n"
        }
        return text
    }

    /// An array of entries with the field names of ``TimelineEntry``, keys sorted, fields that do not apply
    /// left out; ends with a newline.
    /// - Parameter pretty: one field a line, for the expected files a person reads and diffs; else one line, as every
    ///   `locctl … --json` prints.
    package static func json(_ entries: [TimelineEntry], pretty: Bool = false) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        // Encoding plain strings, numbers and arrays cannot fail.
        let data = (try? encoder.encode(entries)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
