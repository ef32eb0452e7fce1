import DisplayText
import Logging

/// The journal fields of one log event, built without touching the journal so tests can read them.
///
/// Fields, in order: `MESSAGE`, `PRIORITY` (syslog 0–7), `SYSLOG_IDENTIFIER`, `CODE_FILE`, `CODE_LINE`,
/// `CODE_FUNC`, `LOCD_LOGGER` (the logger's label), `MESSAGE_ID` when the metadata carries
/// ``MessageID/metadataKey``, `LOCD_ERROR` when the event carries an error, then every other metadata
/// entry under ``fieldName(forMetadataKey:)``, sorted by field name.
package struct JournalEntry: Sendable, Hashable {
    /// `FIELD=value` strings, ready for `sd_journal_sendv`.
    package var fields: [String]

    /// - Parameters:
    ///   - level: the swift-log level, mapped by ``priority(for:)``.
    ///   - message: the text of `MESSAGE`.
    ///   - metadata: the merged metadata of the handler, its provider and the call.
    ///   - identifier: `SYSLOG_IDENTIFIER`, what `journalctl -t` selects.
    ///   - label: the logger's label.
    ///   - error: an error attached to the event, if any.
    ///   - file: the call site's `#fileID`.
    ///   - function: the call site's function.
    ///   - line: the call site's line.
    package init(
        level: Logger.Level,
        message: String,
        metadata: Logger.Metadata,
        identifier: String = "locd",
        label: String? = nil,
        error: (any Error)? = nil,
        file: String,
        function: String,
        line: UInt
    ) {
        var fields = [
            "MESSAGE=\(Self.shown(message))",
            "PRIORITY=\(Self.priority(for: level))",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(file)",
            "CODE_LINE=\(line)",
            "CODE_FUNC=\(function)",
        ]
        if let label {
            fields.append("LOCD_LOGGER=\(label)")
        }
        if let messageID = metadata[MessageID.metadataKey] {
            fields.append("MESSAGE_ID=\(messageID)")
        }
        if let error {
            fields.append("LOCD_ERROR=\(error)")
        }
        let entries = metadata.filter { $0.key != MessageID.metadataKey }
            .map { (name: Self.fieldName(forMetadataKey: $0.key), value: Self.shown($0.value.description)) }
            .sorted { $0.name < $1.name }
        fields += entries.map { "\($0.name)=\($0.value)" }
        self.fields = fields
    }

    /// `text` with every control and bidi character but the line break escaped (SEMANTICS I16): a message may carry
    /// an app's words, and `journalctl` shows them to an administrator's terminal. A line break stays one, which
    /// `journalctl` indents as the same entry's.
    static func shown(_ text: String) -> String {
        text.escapedKeepingLineBreaks
    }

    /// The syslog priority of a swift-log level: `critical` 2 (crit) … `trace` and `debug` 7 (debug).
    ///
    /// swift-log has no emerg (0) or alert (1); a daemon never means the whole system is unusable.
    package static func priority(for level: Logger.Level) -> Int {
        switch level {
        case .critical: 2
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug, .trace: 7
        }
    }

    /// The journal field for a metadata key: `locd.app` → `LOCD_APP`, `peer-pid` → `LOCD_PEER_PID`.
    ///
    /// Upper-cased, with every character outside `A–Z 0–9 _` (dots and dashes among them) turned into
    /// `_`, and `LOCD_` put in front unless it is already there, so a key can never collide with a
    /// trusted or standard field (`MESSAGE`, `_PID`, `PRIORITY`). Journal field names are at most 64
    /// characters; longer ones are cut. The one exception is ``MessageID/metadataKey``, which the entry
    /// sends as `MESSAGE_ID`.
    package static func fieldName(forMetadataKey key: String) -> String {
        if key == MessageID.metadataKey {
            return "MESSAGE_ID"
        }
        let cleaned = String(
            key.uppercased().unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "A"..."Z", "0"..."9", "_": Character(scalar)
                default: "_"
                }
            }
        )
        let prefixed = cleaned.hasPrefix("LOCD_") ? cleaned : "LOCD_" + cleaned
        return String(prefixed.prefix(64))
    }
}
