import TOMLKit

/// One parsed TOML file whose typed reads fail with a ``ConfigurationIssue`` naming file, line and key.
///
/// Absent keys read as `nil`; a present key of the wrong type is an issue. Keys are paths of table names
/// (`["lifecycle", "background-grace"]`), written in messages the way TOML writes them.
package struct TOMLDocument {
    package let file: String
    private var root: TOMLTable
    private let locator: TOMLLineLocator
    /// The table this document reads from, when it is a part of a larger file (an inline manifest), or the
    /// array of tables one of whose elements it reads (``tables(_:)``).
    private var prefix: [String] = []
    /// The element of the array of tables at ``prefix`` this document reads, when it reads one.
    private var element: Element?

    /// One table of an array of tables: its name in messages (`events[3]`), and the line of its header and of
    /// the next element's, between which its keys are written.
    private struct Element {
        var name: String
        var header: Int?
        var nextHeader: Int?

        func contains(_ line: Int) -> Bool {
            guard let header else { return false }
            return line > header && (nextHeader.map { line < $0 } ?? true)
        }
    }

    /// Parses raw file contents, which must be UTF-8 without NUL bytes.
    package init(file: String, bytes: [UInt8]) throws(ConfigurationIssue) {
        var line = 1
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        decoding: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1 && encoded.first == 0x0A { line += 1 }
            case .error:
                throw ConfigurationIssue(file: file, line: line, key: nil, message: "not UTF-8 text")
            case .emptyInput:
                break decoding
            }
        }
        try self.init(file: file, text: String(decoding: bytes, as: UTF8.self))
    }

    package init(file: String, text: String) throws(ConfigurationIssue) {
        self.file = file
        let locator = TOMLLineLocator(text: text)
        self.locator = locator
        // TOMLKit hands the text to C as a C string, which would silently end at a NUL.
        if let nul = text.unicodeScalars.firstIndex(of: "\0") {
            let line = text.unicodeScalars[..<nul].lazy.filter { $0 == "\n" }.count + 1
            throw ConfigurationIssue(file: file, line: line, key: nil, message: "contains a NUL character")
        }
        if let trap = locator.trap {
            throw ConfigurationIssue(
                file: file,
                line: trap.line,
                key: locator.keyPath(atLine: trap.line).map(TOMLDocument.display),
                message: "not valid TOML: \(trap.problem)"
            )
        }
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let line = error.source.begin.line
            throw ConfigurationIssue(
                file: file,
                line: line > 0 ? line : nil,
                key: locator.keyPath(atLine: line).map(TOMLDocument.display),
                message: "not valid TOML: \(error.description)"
            )
        } catch {
            throw ConfigurationIssue(file: file, line: nil, key: nil, message: "not valid TOML: \(error)")
        }
    }

    // MARK: Locating

    /// The line where `path` is written, or where its table is.
    package func line(of path: [String]) -> Int? {
        guard let element else { return locator.line(of: prefix + path) }
        // The key's own line: the first one written under this element's header.
        guard !path.isEmpty else { return element.header }
        return locator.lines(of: prefix + path).first(where: element.contains) ?? element.header
    }

    /// Every line where exactly `path` is written, in order: one per `[[path]]` header of an array of tables.
    package func lines(of path: [String]) -> [Int] {
        locator.lines(of: prefix + path)
    }

    /// The table at `path` as a document of its own whose messages still name the whole path, or `nil` when
    /// `path` is not a table.
    package func scoped(to path: [String]) -> TOMLDocument? {
        guard let table = value(path)?.table else { return nil }
        var part = self
        part.root = table
        part.prefix = prefix + path
        return part
    }

    /// The array of tables at `path` (`[[events]]`), each element as a document of its own whose messages name
    /// it (`events[3].at`) and the line under its header where a key is written; `nil` when absent.
    /// - Throws: an issue when `path` is not an array, or one of its elements not a table.
    package func tables(_ path: [String]) throws(ConfigurationIssue) -> [TOMLDocument]? {
        let written = "[[\(TOMLDocument.display(prefix + path))]]"
        guard let value = value(path) else { return nil }
        guard let array = value.array else {
            throw wrongType(path, expected: "an array of tables (\(written))", found: value)
        }
        let headers = lines(of: path)
        var tables: [TOMLDocument] = []
        for (offset, item) in array.enumerated() {
            var part = self
            part.prefix = prefix + path
            part.element = Element(
                name: TOMLDocument.display(prefix + path) + "[\(offset + 1)]",
                header: offset < headers.count ? headers[offset] : nil,
                nextHeader: offset + 1 < headers.count ? headers[offset + 1] : nil
            )
            guard let table = item.table else {
                throw part.issue([], "expected a table (\(written)), found \(TOMLDocument.noun(item.type))")
            }
            part.root = table
            tables.append(part)
        }
        return tables
    }

    /// An issue about `path`, on the line where it is written.
    package func issue(_ path: [String], _ message: String) -> ConfigurationIssue {
        let key: String?
        if let element {
            key = path.isEmpty ? element.name : element.name + "." + TOMLDocument.display(path)
        } else {
            key = prefix.isEmpty && path.isEmpty ? nil : TOMLDocument.display(prefix + path)
        }
        return ConfigurationIssue(file: file, line: line(of: path), key: key, message: message)
    }

    /// `expected <what>, found <type>`: the value has the wrong type.
    func wrongType(_ path: [String], expected: String, found value: TOMLValueConvertible) -> ConfigurationIssue {
        issue(path, "expected \(expected), found \(TOMLDocument.noun(value.type))")
    }

    /// `expected <what>, found <value>`: the value has the right type but is not allowed.
    func notAllowed(_ path: [String], expected: String, found value: TOMLValueConvertible) -> ConfigurationIssue {
        issue(path, "expected \(expected), found \(TOMLDocument.literal(value))")
    }

    /// A key path as TOML writes it: bare parts as they are, others quoted.
    package static func display(_ path: [String]) -> String {
        path.map { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy(isBare) ? part : quoted(part)
        }.joined(separator: ".")
    }

    /// A string as a TOML basic string, so that odd characters in a message stay visible.
    package static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                text += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    // MARK: Reading

    /// The value at `path`, walking through tables; `nil` when absent.
    package func value(_ path: [String]) -> TOMLValueConvertible? {
        var current: TOMLValueConvertible = root
        for part in path {
            guard let table = current.table, let next = table[part] else { return nil }
            current = next
        }
        return current
    }

    /// The keys of the table at `path` (the root when empty), in TOML's order; none when it is not a table.
    package func keys(_ path: [String]) -> [String] {
        value(path)?.table?.keys ?? []
    }

    func string(_ path: [String]) throws(ConfigurationIssue) -> String? {
        guard let value = value(path) else { return nil }
        guard let string = value.string else { throw wrongType(path, expected: "a string", found: value) }
        return string
    }

    package func bool(_ path: [String]) throws(ConfigurationIssue) -> Bool? {
        guard let value = value(path) else { return nil }
        guard let bool = value.bool else { throw wrongType(path, expected: "true or false", found: value) }
        return bool
    }

    /// A number written as an integer or a float, within `range`.
    func number(
        _ path: [String],
        in range: ClosedRange<Double>,
        expected: String
    ) throws(ConfigurationIssue) -> Double? {
        guard let value = value(path) else { return nil }
        let number: Double
        if let int = value.int {
            number = Double(int)
        } else if let double = value.double {
            number = double
        } else {
            throw wrongType(path, expected: expected, found: value)
        }
        guard range.contains(number) else { throw notAllowed(path, expected: expected, found: value) }
        return number
    }

    /// An integer within `range`.
    func integer(_ path: [String], in range: ClosedRange<Int>, expected: String) throws(ConfigurationIssue) -> Int? {
        guard let value = value(path) else { return nil }
        guard let int = value.int else { throw wrongType(path, expected: expected, found: value) }
        guard range.contains(int) else { throw notAllowed(path, expected: expected, found: value) }
        return int
    }

    /// An array whose every element `element` accepts; it throws for the first it does not.
    func array<Item>(
        _ path: [String],
        expected: String,
        element: (TOMLValueConvertible) -> Item?
    ) throws(ConfigurationIssue) -> [Item]? {
        guard let value = value(path) else { return nil }
        guard let array = value.array else { throw wrongType(path, expected: expected, found: value) }
        var elements: [Item] = []
        for (offset, item) in array.enumerated() {
            guard let converted = element(item) else {
                let found = item.type == .string ? TOMLDocument.literal(item) : TOMLDocument.noun(item.type)
                throw issue(path, "expected \(expected), found \(found) at position \(offset + 1)")
            }
            elements.append(converted)
        }
        return elements
    }

    /// The value at `path` as `convert` makes it, whatever its type; a value `convert` refuses is an issue
    /// `expected <what>, found <value>`.
    package func value<Value>(
        _ path: [String],
        expected: String,
        _ convert: (TOMLValueConvertible) -> Value?
    ) throws(ConfigurationIssue) -> Value? {
        guard let value = value(path) else { return nil }
        guard let converted = convert(value) else { throw notAllowed(path, expected: expected, found: value) }
        return converted
    }

    package func table(_ path: [String], expected: String) throws(ConfigurationIssue) -> TOMLTable? {
        guard let value = value(path) else { return nil }
        guard let table = value.table else { throw wrongType(path, expected: expected, found: value) }
        return table
    }

    // MARK: Describing values

    package static func noun(_ type: TOMLType) -> String {
        switch type {
        case .table: "table"
        case .array: "array"
        case .string: "string"
        case .int: "integer"
        case .double: "floating-point number"
        case .bool: "boolean"
        case .date: "date"
        case .time: "time"
        case .dateTime: "date-time"
        }
    }

    package static func literal(_ value: TOMLValueConvertible) -> String {
        if let int = value.int { return String(int) }
        if let double = value.double { return "\(double)" }
        if let bool = value.bool { return bool ? "true" : "false" }
        if let string = value.string { return quoted(string) }
        return noun(value.type)
    }

    private static func isBare(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }
}
