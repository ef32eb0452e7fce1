import Foundation
import GRDB
import LocationCore

// Rows back into the core's snapshot values; a value this version cannot read is an error, never a guess.
extension LocationStore {
    func readSnapshot(_ db: Database) throws -> CoreSnapshot {
        var snapshot = CoreSnapshot()
        snapshot.locationServicesEnabled =
            try Bool.fetchOne(db, sql: "SELECT location_services_enabled FROM settings WHERE id = 1") ?? true
        for fields in try rows(db, "SELECT * FROM records", table: "records") {
            snapshot.records[try fields.app()] = AuthorizationRecord(
                status: try fields.enumValue("status"),
                provisional: try fields.value("provisional"),
                oneTime: try fields.value("one_time"),
                accuracy: try fields.enumValue("accuracy"),
                temporaryFullAccuracy: try fields.value("temporary_full_accuracy"),
                alwaysDecision: try fields.enumValue("always_decision")
            )
        }
        snapshot.apps = try readApps(db)
        snapshot.sessions = try readSessions(db)
        snapshot.prompts = try readPrompts(db)
        snapshot.conditions = try readConditions(db)
        for fields in try rows(db, "SELECT * FROM always_use WHERE used != 0", table: "always_use") {
            snapshot.alwaysUse[try fields.app()] = Span(nanoseconds: try fields.value("used"))
        }
        for fields in try rows(db, "SELECT * FROM policies", table: "policies") {
            let precise: Int64? = try fields.value("precise")
            snapshot.policies[try fields.value("app_id")] = AppPolicy(
                setting: try fields.optionalEnumValue("setting"),
                precise: precise.map { $0 != 0 }
            )
        }
        for fields in try rows(db, "SELECT * FROM user_settings WHERE location_services_enabled = 0", table: "users") {
            if let uid = try fields.user("uid") { snapshot.usersWithServicesOff.insert(uid) }
        }
        // The order `LocationCore.snapshot` uses; ids sort by number, which their text does not.
        snapshot.apps.sort { $0.app < $1.app }
        snapshot.sessions.sort { $0.id < $1.id }
        snapshot.prompts.sort { $0.id < $1.id }
        return snapshot
    }

    /// The rows `sql` selects from `table`, to read column by column.
    private func rows(_ db: Database, _ sql: String, table: String) throws -> [StoredRow] {
        try Row.fetchAll(db, sql: sql).map { StoredRow($0, table: table, path: path) }
    }

    private func readApps(_ db: Database) throws -> [AppSnapshot] {
        try rows(db, "SELECT * FROM apps", table: "apps").map { fields in
            AppSnapshot(
                appID: try fields.value("app_id"),
                state: try fields.enumValue("state"),
                graceEnds: try fields.instant("grace_ends"),
                relaunchEnds: try fields.instant("relaunch_ends"),
                inUseAtTermination: try fields.value("in_use_at_termination"),
                user: try fields.user("uid")
            )
        }
    }

    /// The sessions, through a cursor: the one table that holds 100,000 rows at a restart. `Row.fetchAll` copied
    /// every row into a row of its own (each column's value and name) before the first was read; a cursor reads each
    /// row where SQLite left it, into an array sized once.
    private func readSessions(_ db: Database) throws -> [SessionSnapshot] {
        var sessions: [SessionSnapshot] = []
        sessions.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions") ?? 0)
        let columns = ["id", "app_id", "kind", "requirement", "purpose_key", "owner_pid", "linger_ends", "uid"]
        let cursor = try Row.fetchCursor(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM sessions")
        while let row = try cursor.next() {
            let fields = StoredRow(row, table: "sessions", path: path, columns: columns)
            sessions.append(
                SessionSnapshot(
                    id: try fields.id("id", SessionID.init),
                    appID: try fields.value("app_id"),
                    kind: try fields.enumValue("kind"),
                    requirement: try fields.enumValue("requirement"),
                    purposeKey: try fields.value("purpose_key"),
                    ownerPID: try fields.value("owner_pid"),
                    lingerEnds: try fields.instant("linger_ends"),
                    user: try fields.user("uid")
                )
            )
        }
        return sessions
    }

    private func readPrompts(_ db: Database) throws -> [PromptSnapshot] {
        try rows(db, "SELECT * FROM prompts", table: "prompts").map { fields in
            PromptSnapshot(
                id: try fields.id("id", PromptID.init),
                appID: try fields.value("app_id"),
                kind: try fields.enumValue("kind"),
                purposeKey: try fields.value("purpose_key"),
                raisedAt: try fields.instant("raised_at"),
                user: try fields.user("uid")
            )
        }
    }

    private func readConditions(_ db: Database) throws -> [ConditionSnapshot] {
        // Monitor names and identifiers are the clients' own text, which may hold NUL: read as blobs, by length,
        // as text would be read as a C string and cut at its first NUL (two conditions then merged at a start).
        let conditions = """
            SELECT app_id, uid, CAST(monitor AS BLOB) AS monitor, CAST(identifier AS BLOB) AS identifier, latitude,
                longitude, radius, state, state_date, position
            FROM conditions ORDER BY position
            """
        return try rows(db, conditions, table: "conditions").map { fields in
            ConditionSnapshot(
                appID: try fields.value("app_id"),
                monitor: try fields.text("monitor"),
                identifier: try fields.text("identifier"),
                condition: CircularCondition(
                    latitude: try fields.value("latitude"),
                    longitude: try fields.value("longitude"),
                    radius: try fields.value("radius")
                ),
                state: try fields.enumValue("state"),
                date: try fields.value("state_date"),
                position: try fields.value("position"),
                user: try fields.user("uid")
            )
        }
    }
}

/// One stored row, read column by column into the core's types; errors name the table, row and column.
private struct StoredRow {
    let row: Row
    let table: String
    let path: String
    /// The columns the query selected, in order, when it named them: found by position rather than by GRDB's
    /// lookup by name, which lowercases the name at every call (perf: a tenth of reading 100,000 sessions).
    let columns: [String]

    init(_ row: Row, table: String, path: String, columns: [String] = []) {
        self.row = row
        self.table = table
        self.path = path
        self.columns = columns
    }

    func value<Value: DatabaseValueConvertible>(_ column: String) throws -> Value {
        do {
            if let index = columns.firstIndex(of: column) { return try row.decode(Value.self, atIndex: index) }
            return try row.decode(Value.self, forColumn: column)
        } catch {
            throw unreadable(column, "\(row[column] ?? "NULL") is not a \(Value.self)")
        }
    }

    /// Text stored as a blob (`CAST(column AS BLOB)`), every byte of it, NUL included.
    func text(_ column: String) throws -> String {
        let bytes: Data = try value(column)
        guard let text = String(bytes: bytes, encoding: .utf8) else { throw unreadable(column, "not UTF-8") }
        return text
    }

    /// A `uid` column: the user's uid, `nil` for the app of no user (`-1`, H2).
    func user(_ column: String) throws -> UInt32? {
        let uid: Int64 = try value(column)
        if uid == StoreSchema.noUser { return nil }
        guard let user = UInt32(exactly: uid) else { throw unreadable(column, "\(uid) is not a uid") }
        return user
    }

    /// The user's app a row of a table keyed by app and user names.
    func app() throws -> AppKey {
        AppKey(try value("app_id"), user: try user("uid"))
    }

    func optionalEnumValue<Value: RawRepresentable>(_ column: String) throws -> Value? where Value.RawValue == String {
        let raw: String? = try value(column)
        guard let raw else { return nil }
        guard let value = Value(rawValue: raw) else { throw unreadable(column, "unknown \(Value.self) \"\(raw)\"") }
        return value
    }

    func instant(_ column: String) throws -> Instant? {
        let nanoseconds: Int64? = try value(column)
        return nanoseconds.map(Instant.init(nanoseconds:))
    }

    func enumValue<Value: RawRepresentable>(_ column: String) throws -> Value where Value.RawValue == String {
        let raw: String = try value(column)
        guard let value = Value(rawValue: raw) else { throw unreadable(column, "unknown \(Value.self) \"\(raw)\"") }
        return value
    }

    func id<ID>(_ column: String, _ parse: (String) -> ID?) throws -> ID {
        let text: String = try value(column)
        guard let id = parse(text) else { throw unreadable(column, "\"\(text)\" is not a \(ID.self)") }
        return id
    }

    private func unreadable(_ column: String, _ problem: String) -> StoreError {
        let key = row.hasColumn("id") ? row["id"] : row["app_id"]
        return .unreadable(path: path, reason: "\(table) row \(key ?? "?"), column \(column): \(problem)")
    }
}
