import Logging
import Testing

@testable import LocationAgent

/// locd-agent's log lines (I16): what reaches the handler it wraps has no control or bidi character of an app's.
@Suite("locd-agent's log")
struct DisplayLogHandlerTests {
    /// A handler that keeps what it is given.
    private struct Capture: LogHandler {
        final class Lines: @unchecked Sendable { var messages: [String] = [] }
        let lines: Lines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let values = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            lines.messages.append(([event.message.description] + values).joined(separator: " "))
        }
    }

    @Test("I16: an app's name with an escape, a line break and a right-to-left override is logged escaped")
    func escaped() {
        let lines = Capture.Lines()
        let logger = Logger(label: "locd-agent") { _ in DisplayLogHandler(Capture(lines: lines)) }
        let name = "Maps\u{1B}[2J\nforged line\u{202E}"
        logger.info("showing \(name)", metadata: ["app": .string(name)])
        let shown = "Maps\\u{1b}[2J\\u{a}forged line\\u{202e}"
        #expect(lines.messages == ["showing \(shown) app=\(shown)"])
    }
}
