import GRDB

/// The store's tables, as GRDB migrations; a migration once shipped is never edited, only followed.
///
/// - `records`: one row per app with an authorization decision (SEMANTICS §3); kept across boots.
/// - `settings`: one row: the global switch (kept across boots) and the id epoch (S3).
/// - `apps`, `sessions`, `prompts`: this boot's state (R2); each row carries the boot id that wrote it,
///   and ``LocationStore/load()`` deletes the rows of any other boot.
/// - `conditions` (v2): monitored conditions per app, monitor and identifier (U4), with their last state and
///   the order they were added in; kept across boots, as CLMonitor keeps them.
/// - v3 keys `sessions` by app, then id, so that an app's sessions share a few pages: an app that ends or
///   lingers writes them all at once (a thousand clients gone at once, then their expiry), and keyed by id
///   alone they were spread over the whole table, one page written per session at each commit.
///
/// - `always_use` (v4): each app's background use under Always counted towards re-confirmation (P12), in
///   nanoseconds; kept across boots, as the use it counts spans days.
///
/// - `owners` (v5): the uid whose `Hello` made each app with no manifest of its own (SEMANTICS F20); kept across
///   boots, as the records it is counted for are. Apps stored before v5 have no row: their owner is unknown.
///
/// Enum columns hold the enums' raw values, the same strings as on the wire. Instants are `CLOCK_BOOTTIME`
/// nanoseconds. Ids are their wire spelling (`s3-12`, `p3-4`). Tables are `STRICT` so that a value of the
/// wrong type is refused when written instead of surprising ``LocationStore/load()``.
enum StoreSchema {
    /// `PRAGMA application_id`: `locd` in ASCII, so that no other program's database is taken for a store.
    static let applicationID: Int32 = 0x6C6F_6364

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (name, sql) in migrations {
            migrator.registerMigration(name) { db in try db.execute(sql: sql) }
        }
        return migrator
    }

    /// Each migration's name and its SQL, in the order they run.
    private static let migrations: [(name: String, sql: String)] = [
        ("v1", v1),
        ("v2-conditions", v2Conditions),
        ("v3-sessions-by-app", v3SessionsByApp),
        ("v4-always-use", v4AlwaysUse),
        ("v5-owners", v5Owners),
    ]

    private static let v1 = """
        PRAGMA application_id = \(applicationID);
        CREATE TABLE records (
            app_id TEXT NOT NULL PRIMARY KEY,
            status TEXT NOT NULL,
            provisional INTEGER NOT NULL CHECK (provisional IN (0, 1)),
            one_time INTEGER NOT NULL CHECK (one_time IN (0, 1)),
            accuracy TEXT NOT NULL,
            temporary_full_accuracy INTEGER NOT NULL CHECK (temporary_full_accuracy IN (0, 1)),
            always_decision TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE settings (
            id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
            location_services_enabled INTEGER NOT NULL CHECK (location_services_enabled IN (0, 1)),
            epoch INTEGER NOT NULL
        ) STRICT;
        INSERT INTO settings (id, location_services_enabled, epoch) VALUES (1, 1, 0);
        CREATE TABLE apps (
            app_id TEXT NOT NULL PRIMARY KEY,
            state TEXT NOT NULL,
            grace_ends INTEGER,
            relaunch_ends INTEGER,
            in_use_at_termination INTEGER NOT NULL CHECK (in_use_at_termination IN (0, 1)),
            boot_id TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE sessions (
            id TEXT NOT NULL PRIMARY KEY,
            app_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            requirement TEXT NOT NULL,
            purpose_key TEXT,
            owner_pid INTEGER NOT NULL,
            linger_ends INTEGER,
            boot_id TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE prompts (
            id TEXT NOT NULL PRIMARY KEY,
            app_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            purpose_key TEXT,
            raised_at INTEGER,
            boot_id TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;
        """

    private static let v2Conditions = """
        CREATE TABLE conditions (
            app_id TEXT NOT NULL,
            monitor TEXT NOT NULL,
            identifier TEXT NOT NULL,
            latitude REAL NOT NULL,
            longitude REAL NOT NULL,
            radius REAL NOT NULL,
            state TEXT NOT NULL,
            state_date REAL,
            position INTEGER NOT NULL,
            PRIMARY KEY (app_id, monitor, identifier)
        ) STRICT, WITHOUT ROWID;
        """

    private static let v3SessionsByApp = """
        CREATE TABLE sessions_by_app (
            app_id TEXT NOT NULL,
            id TEXT NOT NULL,
            kind TEXT NOT NULL,
            requirement TEXT NOT NULL,
            purpose_key TEXT,
            owner_pid INTEGER NOT NULL,
            linger_ends INTEGER,
            boot_id TEXT NOT NULL,
            PRIMARY KEY (app_id, id)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO sessions_by_app
            SELECT app_id, id, kind, requirement, purpose_key, owner_pid, linger_ends, boot_id FROM sessions;
        DROP TABLE sessions;
        ALTER TABLE sessions_by_app RENAME TO sessions;
        """

    private static let v4AlwaysUse = """
        CREATE TABLE always_use (
            app_id TEXT NOT NULL PRIMARY KEY,
            used INTEGER NOT NULL CHECK (used >= 0)
        ) STRICT, WITHOUT ROWID;
        """

    private static let v5Owners = """
        CREATE TABLE owners (
            app_id TEXT NOT NULL PRIMARY KEY,
            uid INTEGER NOT NULL CHECK (uid BETWEEN 0 AND 4294967295)
        ) STRICT, WITHOUT ROWID;
        """
}
