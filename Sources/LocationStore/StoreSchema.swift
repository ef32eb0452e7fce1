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
/// - v6 (SEMANTICS H1, H3): everything kept per app is kept per user's app: `records`, `apps`, `sessions`,
///   `prompts`, `conditions` and `always_use` gain a `uid` column, part of each key, that names the app's user;
///   -1 is the app's entry of no user (H2). A row of v5 goes to the uid `owners` held for its app, and every other
///   row to the entry of no user, which no user's app inherits (H3): nothing one person decided widens to others.
///   `owners` goes (an app's owner is its user); `policies` holds the administrator's setting of an app for every
///   user (H5) and `user_settings` each user's own location switch (H6), both kept across boots.
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
        ("v6-users", v6Users),
    ]

    /// The `uid` column's value for the app of no user (H2).
    static let noUser: Int64 = -1

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

    private static let v6Users = """
        CREATE TABLE records_v6 (
            app_id TEXT NOT NULL,
            uid INTEGER NOT NULL CHECK (uid BETWEEN -1 AND 4294967295),
            status TEXT NOT NULL,
            provisional INTEGER NOT NULL CHECK (provisional IN (0, 1)),
            one_time INTEGER NOT NULL CHECK (one_time IN (0, 1)),
            accuracy TEXT NOT NULL,
            temporary_full_accuracy INTEGER NOT NULL CHECK (temporary_full_accuracy IN (0, 1)),
            always_decision TEXT NOT NULL,
            PRIMARY KEY (app_id, uid)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO records_v6
            SELECT r.app_id, coalesce(o.uid, -1), r.status, r.provisional, r.one_time, r.accuracy,
                r.temporary_full_accuracy, r.always_decision
            FROM records r LEFT JOIN owners o ON o.app_id = r.app_id;
        DROP TABLE records;
        ALTER TABLE records_v6 RENAME TO records;

        CREATE TABLE apps_v6 (
            app_id TEXT NOT NULL,
            uid INTEGER NOT NULL CHECK (uid BETWEEN -1 AND 4294967295),
            state TEXT NOT NULL,
            grace_ends INTEGER,
            relaunch_ends INTEGER,
            in_use_at_termination INTEGER NOT NULL CHECK (in_use_at_termination IN (0, 1)),
            boot_id TEXT NOT NULL,
            PRIMARY KEY (app_id, uid)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO apps_v6
            SELECT a.app_id, coalesce(o.uid, -1), a.state, a.grace_ends, a.relaunch_ends, a.in_use_at_termination,
                a.boot_id
            FROM apps a LEFT JOIN owners o ON o.app_id = a.app_id;
        DROP TABLE apps;
        ALTER TABLE apps_v6 RENAME TO apps;

        CREATE TABLE sessions_v6 (
            app_id TEXT NOT NULL,
            uid INTEGER NOT NULL CHECK (uid BETWEEN -1 AND 4294967295),
            id TEXT NOT NULL,
            kind TEXT NOT NULL,
            requirement TEXT NOT NULL,
            purpose_key TEXT,
            owner_pid INTEGER NOT NULL,
            linger_ends INTEGER,
            boot_id TEXT NOT NULL,
            PRIMARY KEY (app_id, uid, id)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO sessions_v6
            SELECT s.app_id, coalesce(o.uid, -1), s.id, s.kind, s.requirement, s.purpose_key, s.owner_pid,
                s.linger_ends, s.boot_id
            FROM sessions s LEFT JOIN owners o ON o.app_id = s.app_id;
        DROP TABLE sessions;
        ALTER TABLE sessions_v6 RENAME TO sessions;

        ALTER TABLE prompts ADD COLUMN uid INTEGER NOT NULL DEFAULT -1 CHECK (uid BETWEEN -1 AND 4294967295);
        UPDATE prompts SET uid = coalesce((SELECT uid FROM owners WHERE owners.app_id = prompts.app_id), -1);

        CREATE TABLE conditions_v6 (
            app_id TEXT NOT NULL,
            uid INTEGER NOT NULL CHECK (uid BETWEEN -1 AND 4294967295),
            monitor TEXT NOT NULL,
            identifier TEXT NOT NULL,
            latitude REAL NOT NULL,
            longitude REAL NOT NULL,
            radius REAL NOT NULL,
            state TEXT NOT NULL,
            state_date REAL,
            position INTEGER NOT NULL,
            PRIMARY KEY (app_id, uid, monitor, identifier)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO conditions_v6
            SELECT c.app_id, coalesce(o.uid, -1), c.monitor, c.identifier, c.latitude, c.longitude, c.radius,
                c.state, c.state_date, c.position
            FROM conditions c LEFT JOIN owners o ON o.app_id = c.app_id;
        DROP TABLE conditions;
        ALTER TABLE conditions_v6 RENAME TO conditions;

        CREATE TABLE always_use_v6 (
            app_id TEXT NOT NULL,
            uid INTEGER NOT NULL CHECK (uid BETWEEN -1 AND 4294967295),
            used INTEGER NOT NULL CHECK (used >= 0),
            PRIMARY KEY (app_id, uid)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO always_use_v6
            SELECT w.app_id, coalesce(o.uid, -1), w.used FROM always_use w LEFT JOIN owners o ON o.app_id = w.app_id;
        DROP TABLE always_use;
        ALTER TABLE always_use_v6 RENAME TO always_use;

        DROP TABLE owners;

        CREATE TABLE policies (
            app_id TEXT NOT NULL PRIMARY KEY,
            setting TEXT,
            precise INTEGER CHECK (precise IN (0, 1))
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE user_settings (
            uid INTEGER NOT NULL PRIMARY KEY CHECK (uid BETWEEN 0 AND 4294967295),
            location_services_enabled INTEGER NOT NULL CHECK (location_services_enabled IN (0, 1))
        ) STRICT;
        """
}
