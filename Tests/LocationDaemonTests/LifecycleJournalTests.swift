import LocationCore
import Logging
import SystemdSupport
import Testing

@testable import LocationDaemon

/// The journal's lines for what the daemon stores, from a log handler that keeps them: the message, the level,
/// and the metadata that becomes `MESSAGE_ID`, `LOCD_APP` and `LOCD_SESSION` in the journal.
@Suite struct LifecycleJournalTests {
    struct Line: Equatable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    /// Keeps every line logged through it; used on the test's thread only.
    final class Lines: @unchecked Sendable {
        var all: [Line] = []
    }

    struct KeepingHandler: LogHandler {
        let lines: Lines
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).mapValues { "\($0)" }
            lines.all.append(Line(level: event.level, message: "\(event.message)", metadata: fields))
        }
    }

    private func journal(level: Logger.Level = .info) -> (LifecycleJournal, Lines) {
        let lines = Lines()
        let logger = Logger(label: "test") { _ in KeepingHandler(lines: lines, logLevel: level) }
        return (LifecycleJournal(logger: logger), lines)
    }

    private func session(_ number: UInt64, of appID: String) -> SessionSnapshot {
        SessionSnapshot(
            id: SessionID(epoch: 3, number: number),
            appID: appID,
            kind: .explicit,
            requirement: .whenInUse,
            purposeKey: nil,
            ownerPID: 42,
            lingerEnds: nil,
            user: nil
        )
    }

    @Test("R1: a stored decision is journalled with its app, status, Settings label and MESSAGE_ID")
    func decision() {
        var (journal, lines) = journal()
        journal.record(.record(AppKey.noUser("com.ex.maps"), AuthorizationRecord(status: .denied)))
        #expect(
            lines.all == [
                Line(
                    level: .info,
                    message: "authorization of com.ex.maps: denied (never)",
                    metadata: [
                        MessageID.metadataKey: MessageID.authorizationChanged.rawValue, "locd.app": "com.ex.maps",
                    ]
                )
            ]
        )
    }

    @Test("R2: a session is journalled once when stored, not at its updates, and once when it ends")
    func sessionCreatedAndEnded() {
        var (journal, lines) = journal()
        journal.record(.session(session(7, of: "com.ex.maps")))
        var lingering = session(7, of: "com.ex.maps")
        lingering.lingerEnds = Instant(nanoseconds: 5_000_000_000)
        journal.record(.session(lingering))
        journal.record(.sessionRemoved(AppKey.noUser("com.ex.maps"), SessionID(epoch: 3, number: 7)))
        #expect(
            lines.all == [
                Line(
                    level: .info,
                    message: "session s3-7 of com.ex.maps: explicit whenInUse",
                    metadata: [
                        MessageID.metadataKey: MessageID.sessionCreated.rawValue, "locd.app": "com.ex.maps",
                        "locd.session": "s3-7",
                    ]
                ),
                Line(
                    level: .info,
                    message: "session s3-7 ended",
                    metadata: [MessageID.metadataKey: MessageID.sessionEnded.rawValue, "locd.session": "s3-7"]
                ),
            ]
        )
    }

    @Test("6: a prompt is journalled once it heads its app's queue and is shown, not while queued, and when resolved")
    func promptRaisedAndResolved() {
        var (journal, lines) = journal()
        let id = PromptID(epoch: 3, number: 2)
        var prompt = PromptSnapshot(
            id: id,
            appID: "com.ex.maps",
            kind: .authorization,
            purposeKey: nil,
            raisedAt: nil,
            user: nil
        )
        journal.record(.prompt(prompt))
        #expect(lines.all.isEmpty)
        prompt.raisedAt = Instant(nanoseconds: 1)
        journal.record(.prompt(prompt))
        journal.record(.prompt(prompt))
        journal.record(.promptRemoved(id))
        #expect(
            lines.all.map(\.message) == [
                "prompt p3-2 (authorization) shown for com.ex.maps", "prompt p3-2 resolved",
            ]
        )
        #expect(
            lines.all.map { $0.metadata[MessageID.metadataKey] } == [
                MessageID.promptRaised.rawValue, MessageID.promptResolved.rawValue,
            ]
        )
    }

    @Test("A4: the global switch is journalled as a notice; writes that are no lifecycle event are not")
    func switchAndQuietWrites() {
        var (journal, lines) = journal()
        journal.record(.locationServices(false))
        journal.record(.conditionRemoved(AppKey.noUser("com.ex.maps"), monitor: "places", identifier: "home"))
        #expect(lines.all == [Line(level: .notice, message: "location services off", metadata: [:])])
    }

    @Test("R1: below info nothing is journalled, not even a decision")
    func quietBelowInfo() {
        var (journal, lines) = journal(level: .warning)
        journal.record(.record(AppKey.noUser("com.ex.maps"), AuthorizationRecord(status: .denied)))
        journal.record(.locationServices(false))
        #expect(lines.all.isEmpty)
    }
}
