/// A position in one line's scalars, for ``TOMLLineLocator``; every read is bounds-checked.
struct TOMLLineCursor {
    /// What a value leaves open at the end of its line, to be followed on the next.
    struct Open {
        /// The closing delimiter of a multi-line string.
        var delimiter: [Unicode.Scalar]?
        /// The arrays (`[`) and inline tables (`{`) still open, innermost last.
        var containers: [Unicode.Scalar] = []
        /// Whether the innermost array has just opened or seen a comma, so that a value must come next.
        var expectingValue = false
        /// Whether the innermost inline table has just seen `=`, so that a value comes next rather than a key.
        var afterEquals = false

        var isOpen: Bool { delimiter != nil || !containers.isEmpty }

        /// Whether the next token is a value rather than a key.
        var atValue: Bool { containers.last == "[" || afterEquals }
    }

    static let arrayProblem = "expected a value or ']' in the array, found '}'"
    static let scalarProblem = "not a well-formed number, date or time"

    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    mutating func advance(_ count: Int = 1) {
        index = min(index + count, scalars.count)
    }

    mutating func consume(_ scalar: Unicode.Scalar) -> Bool {
        guard peek == scalar else { return false }
        advance()
        return true
    }

    func hasPrefix(_ prefix: [Unicode.Scalar]) -> Bool {
        index + prefix.count <= scalars.count && Array(scalars[index..<index + prefix.count]) == prefix
    }

    mutating func skipWhitespace() {
        while let scalar = peek, scalar == " " || scalar == "\t" || scalar == "\r" {
            advance()
        }
    }

    /// Moves past the next unescaped `delimiter`; false (at the end) when the line has none.
    mutating func skip(past delimiter: [Unicode.Scalar]) -> Bool {
        let escapes = delimiter.first == "\""
        while let scalar = peek {
            if escapes && scalar == "\\" {
                advance(2)
            } else if hasPrefix(delimiter) {
                advance(delimiter.count)
                // A multi-line string may end with up to two quotes of content before its delimiter.
                while delimiter.count == 3 && peek == delimiter.first { advance() }
                return true
            } else {
                advance()
            }
        }
        return false
    }

    /// Steps over a string value; returns the delimiter of a multi-line string that stays open past this line.
    mutating func skipString() -> [Unicode.Scalar]? {
        guard let quote = peek else { return nil }
        let triple = [quote, quote, quote]
        if hasPrefix(triple) {
            advance(3)
            return skip(past: triple) ? nil : triple
        }
        advance()
        _ = skip(past: [quote])
        return nil
    }

    /// Follows the text of open arrays, inline tables and a multi-line string until they all close or the line
    /// ends, starting at an array's `[` or where the previous line left off.
    /// - Returns: what toml++ would trap on, if anything: a `}` where an array expects a value, or a malformed
    ///   number, date or time.
    mutating func skipNested(_ open: inout Open) -> String? {
        if open.containers.isEmpty && open.delimiter == nil && consume("[") {
            open.containers = ["["]
            open.expectingValue = true
        }
        if let delimiter = open.delimiter {
            guard skip(past: delimiter) else { return nil }
            open.delimiter = nil
        }
        while !open.containers.isEmpty, let scalar = peek {
            switch scalar {
            case " ", "\t", "\r":
                advance()
            case "#":
                index = scalars.count
            case "\"", "'":
                let isValue = open.atValue
                open.expectingValue = false
                if isValue { open.afterEquals = false }
                if let delimiter = skipString() {
                    open.delimiter = delimiter
                    return nil
                }
            case "[", "{":
                open.containers.append(scalar)
                open.expectingValue = scalar == "["
                open.afterEquals = false
                advance()
            case "]", "}":
                if scalar == "}" && open.containers.last == "[" && open.expectingValue {
                    return TOMLLineCursor.arrayProblem
                }
                open.containers.removeLast()
                open.expectingValue = false
                open.afterEquals = false
                advance()
            case ",":
                open.expectingValue = open.containers.last == "["
                open.afterEquals = false
                advance()
            case "=" where open.containers.last == "{":
                open.afterEquals = true
                advance()
            default:
                if open.atValue {
                    open.expectingValue = false
                    open.afterEquals = false
                    if !skipScalarValue() { return TOMLLineCursor.scalarProblem }
                } else {
                    advance()
                }
            }
        }
        return nil
    }

    /// Steps over a value that is neither a string nor a container: a number, boolean, date or time.
    /// - Returns: false for a value that starts like a number or date and is not a well-formed one.
    mutating func skipScalarValue() -> Bool {
        let start = index
        guard let first = peek else { return true }
        skipToken()
        if index == start { advance() }  // a stray control character: step over it, toml++ reports it
        guard first == "+" || first == "-" || ("0"..."9").contains(first) else { return true }
        // A local date followed by a space and a digit is a date-time with a space for its `T`.
        if TOMLScalarGrammar.isLocalDate(Array(scalars[start..<index])), peek == " ", index + 1 < scalars.count,
            ("0"..."9").contains(scalars[index + 1])
        {
            advance()
            skipToken()
        }
        return TOMLScalarGrammar.accepts(Array(scalars[start..<index]))
    }

    /// Moves to the end of a value: whitespace, `,`, `]`, `}`, `#` or the end of the line.
    private mutating func skipToken() {
        while let scalar = peek, !(" \t,]}#".unicodeScalars.contains(scalar) || (0x0A...0x0D).contains(scalar.value)) {
            advance()
        }
    }

    /// Whether the table header at the cursor (`[` or `[[`) goes on with a character a key can start with, as
    /// toml++ assumes without checking; toml++ reports the other mistakes (`[ [`, `[]`, end of text) itself.
    func headerStartsWithKey() -> Bool {
        var cursor = self
        guard cursor.consume("[") else { return true }
        let spaced = cursor.skipSpacesAndTabs()
        if !spaced && cursor.consume("[") { _ = cursor.skipSpacesAndTabs() }
        if spaced && cursor.peek == "[" { return true }
        guard let scalar = cursor.peek else { return false }
        return TOMLLineCursor.isBare(scalar) || scalar == "\"" || scalar == "'" || scalar == "]"
    }

    /// Skips what TOML calls whitespace (only spaces and tabs); true if there was any.
    private mutating func skipSpacesAndTabs() -> Bool {
        let start = index
        while peek == " " || peek == "\t" { advance() }
        return index > start
    }

    /// A dotted key such as `a."b.c".'d'`, or `nil` when the text at the cursor is not one.
    mutating func dottedKey() -> [String]? {
        var parts: [String] = []
        repeat {
            skipWhitespace()
            guard let part = simpleKey() else { return nil }
            parts.append(part)
            skipWhitespace()
        } while consume(".")
        return parts
    }

    private mutating func simpleKey() -> String? {
        guard let first = peek else { return nil }
        if first == "'" {
            advance()
            var key = String.UnicodeScalarView()
            while let scalar = peek {
                advance()
                if scalar == "'" { return String(key) }
                key.append(scalar)
            }
            return nil
        }
        if first == "\"" {
            advance()
            return basicStringBody()
        }
        var key = String.UnicodeScalarView()
        while let scalar = peek, TOMLLineCursor.isBare(scalar) {
            key.append(scalar)
            advance()
        }
        return key.isEmpty ? nil : String(key)
    }

    /// The rest of a `"basic"` string with its escapes decoded; `nil` if unterminated or malformed.
    private mutating func basicStringBody() -> String? {
        var key = String.UnicodeScalarView()
        while let scalar = peek {
            advance()
            switch scalar {
            case "\"":
                return String(key)
            case "\\":
                guard let escaped = peek else { return nil }
                advance()
                switch escaped {
                case "n": key.append("\n")
                case "t": key.append("\t")
                case "r": key.append("\r")
                case "b": key.append("\u{8}")
                case "f": key.append("\u{C}")
                case "e": key.append("\u{1B}")
                case "u", "U":
                    guard let decoded = hexScalar(digits: escaped == "u" ? 4 : 8) else { return nil }
                    key.append(decoded)
                default: key.append(escaped)
                }
            default:
                key.append(scalar)
            }
        }
        return nil
    }

    private mutating func hexScalar(digits: Int) -> Unicode.Scalar? {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let scalar = peek, let digit = TOMLLineCursor.hexDigit(scalar) else { return nil }
            value = value &* 16 &+ digit
            advance()
        }
        return Unicode.Scalar(value)
    }

    private static func hexDigit(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: scalar.value - 0x30
        case 0x41...0x46: scalar.value - 0x41 + 10
        case 0x61...0x66: scalar.value - 0x61 + 10
        default: nil
        }
    }

    static func isBare(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }
}
