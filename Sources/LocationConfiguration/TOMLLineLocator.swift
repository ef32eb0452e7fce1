/// Finds the line on which a key is written, which TOMLKit does not report.
///
/// It reads the raw text line by line, the way a person would: `[table]` and `[[array]]` headers set the
/// current table, and `key = value` lines (bare, quoted and dotted keys, and the keys of inline tables)
/// are recorded under it. Multi-line strings and arrays are followed across lines so that their contents are
/// never mistaken for keys or headers. It is a locator, not a parser: on text TOML rejects it records what it
/// can and never traps.
///
/// On the way it notes the first place where toml++ 3.4 (the parser under TOMLKit 0.6.0) would trap: there
/// a few mistakes are `assert`ed rather than reported, which aborts a debug build and is undefined behaviour in
/// a release build. Such text is invalid TOML, so refusing it before parsing loses nothing.
struct TOMLLineLocator {
    private struct Entry {
        var path: [String]
        var line: Int
    }

    private var entries: [Entry] = []

    /// The first mistake that toml++ asserts instead of reporting, if any, with its line:
    /// a table header whose key starts with a character no key can start with (`[é]`, `[[[`, `[` alone), a
    /// `}` where an array expects a value (`[}`, `[1, }`), or a malformed number or date (`1979-05-27T.7:32:00`).
    private(set) var trap: (line: Int, problem: String)?

    /// Deeper inline tables are not followed: toml++ refuses values nested more than 256 deep before then,
    /// and following them would recurse without bound.
    private static let maximumInlineDepth = 300

    private static let headerProblem = "a table header must start with a key: A-Z a-z 0-9 _ - or a quoted key"

    init(text: String) {
        var table: [String] = []
        var open = TOMLLineCursor.Open()
        var number = 0
        for rawLine in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            // toml++ skips a byte order mark at the start of the text, so the first line is read after it.
            let scalars = number == 1 && rawLine.first == "\u{FEFF}" ? rawLine.dropFirst() : rawLine
            var cursor = TOMLLineCursor(Array(scalars))
            if open.isOpen {
                if let problem = cursor.skipNested(&open) { noteTrap(at: number, problem) }
                continue
            }
            cursor.skipWhitespace()
            guard let first = cursor.peek, first != "#" else { continue }
            if first == "[" {
                if !cursor.headerStartsWithKey() { noteTrap(at: number, TOMLLineLocator.headerProblem) }
                cursor.advance()
                _ = cursor.consume("[")
                if let path = cursor.dottedKey() {
                    table = path
                    entries.append(Entry(path: path, line: number))
                }
                continue
            }
            open = scanKeyValue(&cursor, in: table, line: number, depth: 0)
        }
    }

    /// The line where `path` is written. A table defined only through its children (`[a.b]` defines `a`) is
    /// found at its first child; failing both, the nearest enclosing table written down (its `[header]` or
    /// inline `key = { … }`), so that a problem inside a table still points somewhere useful.
    func line(of path: [String]) -> Int? {
        if let entry = entries.first(where: { $0.path == path }) { return entry.line }
        if let child = entries.first(where: { $0.path.starts(with: path) }) { return child.line }
        var prefix = path
        while !prefix.isEmpty {
            prefix.removeLast()
            if let entry = entries.first(where: { $0.path == prefix }) { return entry.line }
        }
        return nil
    }

    /// Every line where exactly `path` is written, in order (each header of an array of tables).
    func lines(of path: [String]) -> [Int] {
        entries.filter { $0.path == path }.map(\.line)
    }

    /// The first key or table header written on `line`, to name the key of a parse error.
    func keyPath(atLine line: Int) -> [String]? {
        entries.first { $0.line == line }?.path
    }

    private mutating func noteTrap(at line: Int, _ problem: String) {
        if trap == nil { trap = (line, problem) }
    }

    /// Records `key = value` at the cursor; returns what its value leaves open past this line.
    private mutating func scanKeyValue(
        _ cursor: inout TOMLLineCursor,
        in table: [String],
        line: Int,
        depth: Int
    ) -> TOMLLineCursor.Open {
        guard let key = cursor.dottedKey() else { return TOMLLineCursor.Open() }
        cursor.skipWhitespace()
        guard cursor.consume("=") else { return TOMLLineCursor.Open() }
        let path = table + key
        entries.append(Entry(path: path, line: line))
        cursor.skipWhitespace()
        return scanValue(&cursor, path: path, line: line, depth: depth)
    }

    /// Steps over one value, recording the keys of inline tables; returns what it leaves open past this line.
    private mutating func scanValue(
        _ cursor: inout TOMLLineCursor,
        path: [String],
        line: Int,
        depth: Int
    ) -> TOMLLineCursor.Open {
        var open = TOMLLineCursor.Open()
        switch cursor.peek {
        case "\"", "'":
            open.delimiter = cursor.skipString()
        case "{" where depth < TOMLLineLocator.maximumInlineDepth:
            cursor.advance()
            cursor.skipWhitespace()
            if cursor.consume("}") { break }
            while true {
                cursor.skipWhitespace()
                var inner = scanKeyValue(&cursor, in: path, line: line, depth: depth + 1)
                if inner.isOpen {
                    // The rest of this inline table is followed without recording keys.
                    inner.containers.insert("{", at: 0)
                    return inner
                }
                cursor.skipWhitespace()
                // Anything but `,` or `}` is a mistake toml++ reports, so following stops there.
                if cursor.consume("}") || !cursor.consume(",") { break }
            }
        case "[":
            if let problem = cursor.skipNested(&open) { noteTrap(at: line, problem) }
        default:
            if !cursor.skipScalarValue() { noteTrap(at: line, TOMLLineCursor.scalarProblem) }
        }
        return open
    }
}
