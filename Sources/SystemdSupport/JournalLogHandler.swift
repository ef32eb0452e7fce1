import CSystemd
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log backend that writes structured entries to the systemd journal with `sd_journal_sendv`.
///
/// Each event becomes one entry whose fields ``JournalEntry`` builds: the message, its syslog priority,
/// `SYSLOG_IDENTIFIER=locd`, the call site, and every metadata entry as a `LOCD_` field, so
/// `journalctl LOCD_APP=com.example.maps` or `journalctl MESSAGE_ID=…` select lines. Outside systemd
/// the journal socket is usually missing and entries vanish silently: bootstrap it only when
/// ``Systemd/runningUnderSystemd(environment:)`` says so.
package struct JournalLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?

    /// The logger's label, sent as `LOCD_LOGGER`.
    package let label: String
    /// `SYSLOG_IDENTIFIER`, what `journalctl -t` selects.
    package let identifier: String

    package init(
        label: String,
        identifier: String = "locd",
        logLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.label = label
        self.identifier = identifier
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let merged = mergedMetadata(event.metadata)
        let entry = JournalEntry(
            level: event.level,
            message: event.message.description,
            metadata: merged,
            identifier: identifier,
            label: label,
            error: event.error,
            file: event.file,
            function: event.function,
            line: event.line
        )
        Self.send(entry.fields)
    }

    /// Sends `FIELD=value` strings as one entry; the journal's answer is dropped, as a logger cannot
    /// report its own failure anywhere better.
    private static func send(_ fields: [String]) {
        let byteCount = fields.reduce(0) { $0 + $1.utf8.count }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(byteCount, 1), alignment: 1)
        defer { storage.deallocate() }
        var vectors: [iovec] = []
        vectors.reserveCapacity(fields.count)
        var offset = 0
        for field in fields {
            let length = field.utf8.count
            let slice = UnsafeMutableRawBufferPointer(rebasing: storage[offset..<(offset + length)])
            slice.copyBytes(from: field.utf8)
            vectors.append(iovec(iov_base: slice.baseAddress, iov_len: length))
            offset += length
        }
        _ = vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
    }
}
