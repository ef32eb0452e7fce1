/// A plain-text table in the `systemctl list-units` shape: an upper-case header, columns padded to
/// their widest cell, and a footer counting the rows; `--no-legend` drops header and footer.
///
/// Widths are measured on the text alone, so colour (added per cell after padding) never shifts a
/// column.
struct Table {
    /// One cell: its text and the colour it is painted in when colour is on.
    struct Cell: ExpressibleByStringLiteral {
        var text: String
        var color: Style.Color?

        init(_ text: String, _ color: Style.Color? = nil) {
            self.text = text
            self.color = color
        }

        init(stringLiteral value: String) { self.init(value) }
    }

    var headers: [String]
    var rows: [[Cell]] = []

    /// Renders the table; `legend` adds the header line and a blank line plus `footer` at the end.
    func render(style: Style, legend: Bool, footer: String) -> String {
        var widths = headers.map { legend ? $0.count : 0 }
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.text.count)
            }
        }
        var out = ""
        if legend {
            out += line(headers.map { Cell($0, .bold) }, widths: widths, style: style)
        }
        for row in rows { out += line(row, widths: widths, style: style) }
        if legend { out += "\n" + footer + "\n" }
        return out
    }

    private func line(_ cells: [Cell], widths: [Int], style: Style) -> String {
        var parts: [String] = []
        for (index, cell) in cells.enumerated() {
            let last = index == cells.count - 1
            let padding = last ? "" : String(repeating: " ", count: max(0, widths[index] - cell.text.count))
            parts.append(style.paint(cell.text, cell.color) + padding)
        }
        return parts.joined(separator: "  ") + "\n"
    }
}

/// Label–value lines aligned on the colon, as `systemctl status` and `loginctl show-session` print them.
struct Fields {
    var rows: [(label: String, value: String)] = []

    mutating func add(_ label: String, _ value: String) {
        rows.append((label, value))
    }

    func render() -> String {
        let width = rows.map { $0.label.count }.max() ?? 0
        return rows.map { String(repeating: " ", count: width - $0.label.count + 3) + "\($0.label): \($0.value)\n" }
            .joined()
    }
}
