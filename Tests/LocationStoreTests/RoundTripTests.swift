import LocationCore
import LocationStore
import LocationTestSupport
import Testing

/// What goes into the store comes back out unchanged (SEMANTICS §10, STYLE habit 3).
@Suite struct RoundTripTests {
    @Test("R2: every Persist case round-trips through apply, reopen and load")
    func everyPersistCase() throws {
        try TemporaryDirectory.with { directory in
            let writes = Samples.everyCase
            do {
                let store = try LocationStore(directory: directory.path, bootID: "boot-a")
                for write in writes { try store.apply([write]) }
            }
            let loaded = try LocationStore(directory: directory.path, bootID: "boot-a").load()
            #expect(loaded == Samples.expected(after: writes))
            #expect(loaded.locationServicesEnabled == false)
            #expect(
                loaded.records[AppKey.noUser("com.ex.app0")]
                    == AuthorizationRecord(status: .denied, alwaysDecision: .declined)
            )
            #expect(!loaded.sessions.contains { $0.id == SessionID(epoch: 7, number: 2) })
            #expect(loaded.sessions.last?.id == SessionID(epoch: 7, number: 10))
            #expect(
                loaded.prompts.map(\.id) == [
                    PromptID(epoch: .max, number: 9), PromptID(epoch: .max, number: 11),
                    PromptID(epoch: .max, number: 12),
                ]
            )
            #expect(
                loaded.alwaysUse == [
                    AppKey.noUser("com.ex.app0"): .seconds(86_400.5), AppKey("com.ex.app0", user: 65534): .seconds(7),
                ],
                "a count back at zero is not loaded"
            )
        }
    }

    @Test("R2: text of any length comes back as written: empty, non-ASCII, past the binder's scratch, many in a row")
    func textParameters() throws {
        try TemporaryDirectory.with { directory in
            // The binder copies a statement's text into 4 KiB of scratch and binds the rest as copies: these
            // fill it, pass it alone, and pass it together.
            let long = String(repeating: "ü", count: 1_500)  // 3,000 bytes: two of them do not fit together
            let longer = String(repeating: "a", count: 5_000)
            var writes: [Persist] = []
            for (number, (appID, purposeKey)) in [
                ("com.ex.a", ""), ("", "Navigation"), (long, long), ("com.ex.b", longer), (longer, "ナビ"),
            ].enumerated() {
                writes.append(
                    .session(
                        SessionSnapshot(
                            id: SessionID(epoch: 3, number: UInt64(number)),
                            appID: appID,
                            kind: .explicit,
                            requirement: .whenInUse,
                            purposeKey: purposeKey,
                            ownerPID: 1,
                            lingerEnds: nil,
                            user: nil
                        )
                    )
                )
            }
            do {
                let store = try LocationStore(directory: directory.path, bootID: "boot-a")
                try store.apply(writes)
                // The same statements again, their scratch reused, with other text.
                try store.apply([writes[1], writes[3]])
            }
            let loaded = try LocationStore(directory: directory.path, bootID: "boot-a").load()
            #expect(loaded == Samples.expected(after: writes))
            #expect(loaded.sessions.first { $0.id.number == 0 }?.purposeKey == "")
            #expect(loaded.sessions.first { $0.id.number == 3 }?.purposeKey == longer)
        }
    }

    @Test("R2: an empty store loads as a core with no history, location services on")
    func emptyStore() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            #expect(try store.load() == CoreSnapshot())
        }
    }

    @Test("R2: applying the same writes twice changes nothing; removing what is absent is fine")
    func idempotent() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            let writes = Samples.everyCase
            try store.apply(writes)
            let once = try store.load()
            try store.apply(writes)
            try store.apply([
                .sessionRemoved(AppKey.noUser("com.ex.none"), SessionID(epoch: 99, number: 1)),
                .promptRemoved(PromptID(epoch: 99, number: 1)),
            ])
            try store.apply([])
            #expect(try store.load() == once)
            #expect(once == Samples.expected(after: writes))
        }
    }

    @Test("R1: a batch of events commits in order in one transaction")
    func batch() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            let writes = Samples.everyCase
            let events = stride(from: 0, to: writes.count, by: 3).map { Array(writes[$0..<min($0 + 3, writes.count)]) }
            try store.apply(batch: events)
            try store.apply(batch: [[], []])
            #expect(
                try LocationStore(directory: directory.path, bootID: "boot-a").load() == Samples.expected(after: writes)
            )
        }
    }

    @Test("R2: an empty string comes back empty, not missing; extreme numbers come back exact")
    func edgeValues() throws {
        try TemporaryDirectory.with { directory in
            let session = SessionSnapshot(
                id: SessionID(epoch: .max, number: .max),
                appID: "",
                kind: .explicit,
                requirement: .whenInUse,
                purposeKey: "",
                ownerPID: .min,
                lingerEnds: Instant(nanoseconds: .min),
                user: nil
            )
            let app = AppSnapshot(
                appID: "",
                state: .terminated,
                graceEnds: Instant(nanoseconds: .max),
                relaunchEnds: Instant(nanoseconds: 0),
                inUseAtTermination: true,
                user: nil
            )
            try LocationStore(directory: directory.path, bootID: "").apply([.session(session), .app(app)])
            let loaded = try LocationStore(directory: directory.path, bootID: "").load()
            #expect(loaded.sessions == [session])
            #expect(loaded.apps == [app])
        }
    }
}
