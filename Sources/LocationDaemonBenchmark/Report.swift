import Foundation

/// One measured figure, with its target where the issue sets one.
struct Figure {
    var scenario: String
    var measure: String
    /// The figure as the table shows it.
    var display: String
    /// The figure as a number, in `unit`, for `--json`.
    var value: Double
    var unit: String
    var target: String = ""
    /// `nil` where there is no target.
    var met: Bool? = nil
}

/// The figures of a run, printed as one table (and, with `--json`, as JSON).
final class Report {
    private(set) var figures: [Figure] = []
    /// Tables of their own that a scenario prints after the main table.
    private(set) var sections: [String] = []

    func add(_ figure: Figure) {
        figures.append(figure)
        // Printed as it comes too, so a long run shows progress.
        FileHandle.standardError.write(Data("  \(figure.measure): \(figure.display)\n".utf8))
    }

    func addSection(_ text: String) {
        sections.append(text)
    }

    var table: String {
        let headers = ["scenario", "measure", "result", "target", ""]
        let rows = figures.map { figure in
            [figure.scenario, figure.measure, figure.display, figure.target, figure.met.map { $0 ? "✓" : "✗" } ?? ""]
        }
        return Self.table(headers, rows)
    }

    /// A Markdown table of `rows` under `headers`, each column as wide as its widest cell.
    static func table(_ headers: [String], _ rows: [[String]]) -> String {
        var widths = headers.map(\.count)
        for row in rows { for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) } }
        func line(_ cells: [String]) -> String {
            "| "
                + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        return ([line(headers), rule] + rows.map(line)).joined(separator: "\n")
    }

    var json: String {
        let objects: [[String: Any]] = figures.map { figure in
            var object: [String: Any] = [
                "scenario": figure.scenario, "measure": figure.measure, "value": figure.value, "unit": figure.unit,
                "display": figure.display,
            ]
            if !figure.target.isEmpty { object["target"] = figure.target }
            if let met = figure.met { object["met"] = met }
            return object
        }
        let data =
            (try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// How figures are written in the table.
enum Format {
    static func count(_ value: Double) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 0
        return formatter.string(from: NSNumber(value: value.rounded())) ?? "\(Int(value))"
    }

    /// A duration the run was configured with: "10 s", "1.5 s".
    static func seconds(_ value: Double) -> String {
        String(format: "%g s", value)
    }

    static func milliseconds(_ seconds: Double) -> String {
        String(format: seconds < 0.01 ? "%.3f ms" : "%.1f ms", seconds * 1000)
    }

    static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
