import DisplayText
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log backend for running outside systemd: one plain line per event on standard error.
///
/// A line reads `LEVEL message key=value …`, keys sorted, values with spaces, quotes or `=` quoted;
/// line breaks inside the message or a value are written as `\n` so one event stays one line.
package struct StderrLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?

    package let label: String

    package init(label: String, logLevel: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = mergedMetadata(event.metadata)
        if let error = event.error {
            merged["error"] = "\(error)"
        }
        let text = Self.line(level: event.level, message: event.message.description, metadata: merged) + "\n"
        // Anything print() buffered goes out first, so the two streams keep their order on a terminal.
        // (`fflush(stdout)` does not compile in Swift 6: `stdout` is a mutable global.)
        fflush(nil)
        Self.writeAll(text, to: STDERR_FILENO)
    }

    /// The line for one event, without the newline.
    package static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line = level.rawValue.uppercased() + " " + escaped(message)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(quoted(value.description))"
        }
        return line
    }

    /// Line breaks as `\n`, and every other control or bidi character as `\u{HEX}` (SEMANTICS I16): a message may
    /// carry an app's words, which must not redraw the terminal that shows the log.
    private static func escaped(_ text: String) -> String {
        text.replacingNewlines().escapedForDisplay
    }

    private static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0.isWhitespace || $0 == "\"" || $0 == "=" }
        guard needsQuotes else { return escaped(value) }
        let inner = escaped(value).replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        return "\"" + inner + "\""
    }

    /// One `write(2)` per line in the common case, so lines from several threads do not interleave.
    private static func writeAll(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                // `offset < bytes.count`: the buffer is not empty, so it has a base address.
                guard let base = buffer.baseAddress else { preconditionFailure("a non-empty buffer has an address") }
                return write(descriptor, base + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        var result = ""
        for character in self {
            if character.isNewline {
                result += "\\n"
            } else {
                result.append(character)
            }
        }
        return result
    }
}
