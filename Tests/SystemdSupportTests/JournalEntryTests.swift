import Logging
import SystemdSupport
import Testing

extension ProcessWideTests {
    @Suite("journal: the fields of one entry")
    struct JournalEntryTests {
        struct Refused: Error, CustomStringConvertible {
            var description: String { "store refused the write" }
        }

        @Test("journal: an entry carries MESSAGE, PRIORITY, SYSLOG_IDENTIFIER=locd and the call site")
        func standardFields() {
            let entry = JournalEntry(
                level: .notice,
                message: "session created",
                metadata: [:],
                file: "LocationDaemon/SessionManager.swift",
                function: "create(_:)",
                line: 42
            )
            #expect(
                entry.fields == [
                    "MESSAGE=session created",
                    "PRIORITY=5",
                    "SYSLOG_IDENTIFIER=locd",
                    "CODE_FILE=LocationDaemon/SessionManager.swift",
                    "CODE_LINE=42",
                    "CODE_FUNC=create(_:)",
                ]
            )
        }

        @Test(
            "journal: swift-log levels map to syslog priorities",
            arguments: [
                (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3),
                (.critical, 2),
            ]
        )
        func priorities(level: Logger.Level, priority: Int) {
            #expect(JournalEntry.priority(for: level) == priority)
        }

        @Test(
            "journal: metadata keys become LOCD_ fields, dots and dashes turned into underscores",
            arguments: [
                ("locd.app", "LOCD_APP"),
                ("locd.session", "LOCD_SESSION"),
                ("peer.pid", "LOCD_PEER_PID"),
                ("peer-uid", "LOCD_PEER_UID"),
                ("LOCD_ALREADY", "LOCD_ALREADY"),
                ("message", "LOCD_MESSAGE"),
                ("_PID", "LOCD__PID"),
                ("caf\u{E9} au lait", "LOCD_CAF__AU_LAIT"),
                ("message-id", "MESSAGE_ID"),
            ]
        )
        func fieldNames(key: String, field: String) {
            #expect(JournalEntry.fieldName(forMetadataKey: key) == field)
        }

        @Test("journal: a field name never exceeds the journal's 64 characters")
        func longKey() {
            let name = JournalEntry.fieldName(forMetadataKey: String(repeating: "k", count: 100))
            #expect(name.count == 64)
            #expect(name.hasPrefix("LOCD_KKK"))
        }

        @Test("journal: metadata, the message id, the label and an error become fields after the standard ones")
        func metadataFields() {
            let entry = JournalEntry(
                level: .info,
                message: "session created",
                metadata: MessageID.sessionCreated.metadata.merging([
                    "locd.session": "4f1c",
                    "locd.app": "com.example.maps",
                    "locd.kinds": .array(["explicit", "implicit"]),
                ]) { $1 },
                label: "locd.sessions",
                error: Refused(),
                file: "F.swift",
                function: "f()",
                line: 1
            )
            #expect(
                Array(entry.fields.dropFirst(6)) == [
                    "LOCD_LOGGER=locd.sessions",
                    "MESSAGE_ID=9805834eac604910ba439622f4ea1c51",
                    "LOCD_ERROR=store refused the write",
                    "LOCD_APP=com.example.maps",
                    "LOCD_KINDS=[\"explicit\", \"implicit\"]",
                    "LOCD_SESSION=4f1c",
                ]
            )
        }

        @Test("journal: call metadata wins over the provider's, which wins over the handler's own")
        func handlerMetadata() {
            var handler = JournalLogHandler(
                label: "locd",
                metadataProvider: .init { ["locd.app": "provided", "locd.peer": "provided"] }
            )
            handler[metadataKey: "locd.app"] = "handler"
            handler[metadataKey: "locd.kind"] = "handler"
            #expect(
                handler.mergedMetadata(["locd.peer": "call"])
                    == ["locd.app": "provided", "locd.kind": "handler", "locd.peer": "call"]
            )
        }

        @Test("journal: the handler hands an entry with a multi-line message to sd_journal_sendv without failing")
        func sends() {
            // With journald present this writes one entry tagged locd-tests; without it the call is a no-op.
            var logger = Logger(label: "locd.tests") { JournalLogHandler(label: $0, identifier: "locd-tests") }
            logger[metadataKey: "locd.session"] = "4f1c"
            logger.notice("two\nlines", metadata: MessageID.daemonStarted.metadata)
        }
    }
}
