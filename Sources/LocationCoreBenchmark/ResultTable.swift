/// The figures as a Markdown table: each measure, its result, its target and whether it was met.
struct ResultTable {
    struct Row {
        var measure: String
        var result: String
        var target: String
        var met: Bool
    }

    var rows: [Row] = []

    func print() {
        let widths = [
            max(7, rows.map(\.measure.count).max() ?? 0), max(6, rows.map(\.result.count).max() ?? 0),
            max(6, rows.map(\.target.count).max() ?? 0),
        ]
        let pad = Self.pad
        Swift.print("| \(pad("measure", widths[0])) | \(pad("result", widths[1])) | \(pad("target", widths[2])) |   |")
        Swift.print(
            "|\(String(repeating: "-", count: widths[0] + 2))|\(String(repeating: "-", count: widths[1] + 2))|"
                + "\(String(repeating: "-", count: widths[2] + 2))|---|"
        )
        for row in rows {
            Swift.print(
                "| \(pad(row.measure, widths[0])) | \(pad(row.result, widths[1])) | \(pad(row.target, widths[2])) | "
                    + "\(row.met ? "✓" : "✗") |"
            )
        }
    }

    /// A positive number with thousands separators and `decimals` places (no libm: rounding by hand).
    static func format(_ value: Double, decimals: Int = 0) -> String {
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int(value * Double(scale) + 0.5)
        guard decimals > 0 else { return grouped(scaled) }
        let digits = String(scaled % scale)
        return grouped(scaled / scale) + "." + String(repeating: "0", count: decimals - digits.count) + digits
    }

    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
