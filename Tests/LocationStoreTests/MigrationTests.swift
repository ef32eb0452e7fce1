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
                    lingerEnds: lingerEnds,
                    user: nil
                ),
                SessionSnapshot(
                    id: SessionID(epoch: 2, number: 10),
                    appID: "com.ex.run",
                    kind: .explicit,
                    requirement: .always,
                    purposeKey: "Radar",
                    ownerPID: 42,
                    lingerEnds: nil,
                    user: nil
                ),
            ]
            #expect(try store.load().sessions == expected)

            let keyColumns = try store.queue.read { db in
                try Row.fetchAll(db, sql: "PRAGMA table_info(sessions)").filter { ($0["pk"] as Int) > 0 }
                    .sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }.map { $0["name"] as String }
            }
            // v3 keyed them by app, then id; v6 put the app's user between (H1).
            #expect(keyColumns == ["app_id", "uid", "id"])

            // Writes address the migrated rows: an update replaces the row, a removal deletes it.
            var moved = expected[1]
            moved.lingerEnds = lingerEnds
            try store.apply([.session(moved), .sessionRemoved(AppKey.noUser("com.ex.maps"), expected[0].id)])
            #expect(try store.load().sessions == [moved])
        }
    }

    @Test("H3: a store from before decisions belonged to users gives each row to its app's owner, else to no user")
    func usersMigration() throws {
        try TemporaryDirectory.with { directory in
            let path = directory.path + "/locd.sqlite"
            do {
                let queue = try DatabaseQueue(path: path)
                try StoreSchema.migrator.migrate(queue, upTo: "v5-owners")
                try queue.write { db in
                    // An installed app allowed Always by somebody, an app a known uid made, and one whose maker is
                    // unknown; the owned app also has a count of Always use and a condition.
                    try db.execute(
                        sql: """
                            INSERT INTO records (app_id, status, provisional, one_time, accuracy,
                                temporary_full_accuracy, always_decision)
                            VALUES ('com.ex.maps', 'authorizedAlways', 0, 0, 'fullAccuracy', 0, 'granted'),
                                ('org.invented.Owned', 'authorizedWhenInUse', 0, 0, 'reducedAccuracy', 0, 'declined'),
                                ('org.invented.Unknown', 'denied', 0, 0, 'fullAccuracy', 0, 'undecided');
                            INSERT INTO owners (app_id, uid) VALUES ('org.invented.Owned', 65534);
                            INSERT INTO always_use (app_id, used) VALUES ('org.invented.Owned', 5), ('com.ex.maps', 7);
                            INSERT INTO conditions (app_id, monitor, identifier, latitude, longitude, radius, state,
                                state_date, position)
                            VALUES ('org.invented.Owned', 'm', 'c', 1, 2, 3, 'unknown', NULL, 1);
                            """
                    )
                }
            }
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            let loaded = try store.load()
            #expect(
                loaded.records == [
                    AppKey.noUser("com.ex.maps"): AuthorizationRecord(
                        status: .authorizedAlways,
                        alwaysDecision: .granted
                    ),
                    AppKey("org.invented.Owned", user: 65534):
                        AuthorizationRecord(
                            status: .authorizedWhenInUse,
                            accuracy: .reducedAccuracy,
                            alwaysDecision: .declined
                        ),
                    AppKey.noUser("org.invented.Unknown"): AuthorizationRecord(status: .denied),
                ]
            )
            #expect(
                loaded.alwaysUse == [
                    AppKey("org.invented.Owned", user: 65534): Span(nanoseconds: 5),
                    AppKey.noUser("com.ex.maps"): Span(nanoseconds: 7),
                ]
            )
            #expect(loaded.conditions.map(\.app) == [AppKey("org.invented.Owned", user: 65534)])

            // Nothing widens: a user's app of the installed id starts with no decision, asked again (H3).
            let maps = Manifest(appID: "com.ex.maps", whenInUseUsageDescription: "to show where you are")
            var core = LocationCore(
                configuration: CoreConfiguration(),
                manifests: [maps],
                restoring: loaded,
                epoch: 2,
                at: .seconds(10)
            )
            let client = ClientID(1)
            _ = core.handle(.connected(client, pid: 5, uid: 1000, administrator: false), at: .seconds(11))
            _ = core.handle(
                .call(CallID(client: client, serial: 1), .hello(appID: "com.ex.maps", state: nil)),
                at: .seconds(11)
            )
            #expect(core.authorizationView(AppKey("com.ex.maps", user: 1000)).status == .notDetermined)
            #expect(core.authorizationView(AppKey.noUser("com.ex.maps")).status == .authorizedAlways)
            #expect(core.authorizationView(AppKey("org.invented.Owned", user: 65534)).status == .authorizedWhenInUse)
        }
    }

    @Test("R2: removing a session names its app: the same id under another app is not touched")
    func removalNamesTheApp() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            let session = DurabilityTests.session(1)
            try store.apply([.session(session)])
            try store.apply([.sessionRemoved(AppKey.noUser("com.ex.other"), session.id)])
            #expect(try store.load().sessions == [session])
            try store.apply([.sessionRemoved(AppKey.noUser(session.appID), session.id)])
            #expect(try store.load().sessions.isEmpty)
        }
    }
}
