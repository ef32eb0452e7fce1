import DisplayText
import Logging

/// A log handler that escapes the control and bidi characters of each message and metadata value (SEMANTICS I16)
/// before the handler it wraps writes them: locd-agent's lines carry app ids and names, and its log may be a
/// terminal.
package struct DisplayLogHandler<Wrapped: LogHandler>: LogHandler {
    private var wrapped: Wrapped

    package init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    package var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    package var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    package func log(event: LogEvent) {
        var shown = event
        shown.message = Logger.Message(stringLiteral: event.message.description.escapedForDisplay)
        shown.metadata = event.metadata?.mapValues { .string($0.description.escapedForDisplay) }
        wrapped.log(event: shown)
    }
}
