import GRDB
import LocationTestSupport
import Testing

@testable import LocationCore
@testable import LocationStore

/// A store written by an earlier locd opens, migrates and keeps what it held (R2, R4).
@Suite struct MigrationTests {
    @Test("R2: a store from before sessions were keyed by app keeps every session through the migration")
    func sessionsKeyedByApp() throws {
        try TemporaryDirectory.with { directory in
            let path = directory.path + "/locd.sqlite"
            let lingerEnds = Instant(nanoseconds: 9_000_000_000)
            do {
                let queue = try DatabaseQueue(path: path)
                try StoreSchema.migrator.migrate(queue, upTo: "v2-conditions")
                try queue.write { db in
                    for (id, app, linger) in [
                        ("s2-10", "com.ex.run", nil), ("s2-9", "com.ex.maps", lingerEnds.nanoseconds),
                    ] {
                        try db.execute(
                            sql: """
                                INSERT INTO sessions (id, app_id, kind, requirement, purpose_key, owner_pid, linger_ends, boot_id)
                                VALUES (?, ?, 'explicit', 'always', 'Radar', 42, ?, 'boot-a')
                                """,
                            arguments: [id, app, linger]
                        )
                    }
                }
            }
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            let expected = [
                SessionSnapshot(
                    id: SessionID(epoch: 2, number: 9),
                    appID: "com.ex.maps",
                    kind: .explicit,
                    requirement: .always,
                    purposeKey: "Radar",
                    ownerPID: 42,
                    lingerEnds: lingerEnds
                ),
                SessionSnapshot(
                    id: SessionID(epoch: 2, number: 10),
                    appID: "com.ex.run",
                    kind: .explicit,
                    requirement: .always,
                    purposeKey: "Radar",
                    ownerPID: 42,
                    lingerEnds: nil
                ),
            ]
            #expect(try store.load().sessions == expected)

            let keyColumns = try store.queue.read { db in
                try Row.fetchAll(db, sql: "PRAGMA table_info(sessions)").filter { ($0["pk"] as Int) > 0 }
                    .sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }.map { $0["name"] as String }
            }
            #expect(keyColumns == ["app_id", "id"])

            // Writes address the migrated rows: an update replaces the row, a removal deletes it.
            var moved = expected[1]
            moved.lingerEnds = lingerEnds
            try store.apply([.session(moved), .sessionRemoved(appID: "com.ex.maps", expected[0].id)])
            #expect(try store.load().sessions == [moved])
        }
    }

    @Test("F20: a store from before owners were kept migrates with every app's owner unknown, and keeps owners after")
    func ownersMigration() throws {
        try TemporaryDirectory.with { directory in
            let path = directory.path + "/locd.sqlite"
            let denied = AuthorizationRecord(status: .denied)
            do {
                let queue = try DatabaseQueue(path: path)
                try StoreSchema.migrator.migrate(queue, upTo: "v4-always-use")
                try queue.write { db in
                    try db.execute(
                        sql: """
                            INSERT INTO records (app_id, status, provisional, one_time, accuracy,
                                temporary_full_accuracy, always_decision)
                            VALUES ('org.invented.Old', 'denied', 0, 0, 'fullAccuracy', 0, 'undecided')
                            """
                    )
                }
            }
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            let loaded = try store.load()
            #expect(loaded.records == ["org.invented.Old": denied])
            #expect(loaded.owners.isEmpty)

            // The core restores the app with an unknown owner: listed as such, counted against no uid.
            let core = LocationCore(
                configuration: CoreConfiguration(maxAppsPerUID: 1),
                manifests: [],
                restoring: loaded,
                epoch: 2,
                at: .seconds(10)
            )
            #expect(core.apps["org.invented.Old"]?.owner == nil)
            #expect(core.ownedApps.isEmpty)
            #expect(core.appViews().map(\.owner) == [.unknown])

            // Owners written after the migration are kept and go with their app.
            try store.apply([.owner(appID: "org.invented.New", uid: 65534), .record(appID: "org.invented.New", denied)])
            #expect(try store.load().owners == ["org.invented.New": 65534])
            try store.apply([.appRemoved(appID: "org.invented.New")])
            #expect(try store.load().owners.isEmpty)
            #expect(try store.load().records == ["org.invented.Old": denied])
        }
    }

    @Test("R2: removing a session names its app: the same id under another app is not touched")
    func removalNamesTheApp() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            let session = DurabilityTests.session(1)
            try store.apply([.session(session)])
            try store.apply([.sessionRemoved(appID: "com.ex.other", session.id)])
            #expect(try store.load().sessions == [session])
            try store.apply([.sessionRemoved(appID: session.appID, session.id)])
            #expect(try store.load().sessions.isEmpty)
        }
    }
}
