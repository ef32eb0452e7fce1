import GRDB
import LocationCore

// One `Persist` as one statement, prepared once per connection and cached by GRDB.
extension LocationStore {
    func apply(_ write: Persist, _ db: Database) throws {
        switch write {
        case .record(let appID, let record):
            try db.cachedStatement(sql: Self.upsertRecord).execute(arguments: [
                appID, record.status.rawValue, record.provisional, record.oneTime, record.accuracy.rawValue,
                record.temporaryFullAccuracy, record.alwaysDecision.rawValue,
            ])
        case .locationServices(let enabled):
            try db.cachedStatement(sql: Self.updateLocationServices).execute(arguments: [enabled])
        case .session(let session):
            try db.cachedStatement(sql: Self.upsertSession).execute(arguments: [
                session.id.description, session.appID, session.kind.rawValue, session.requirement.rawValue,
                session.purposeKey, session.ownerPID, session.lingerEnds?.nanoseconds, bootID,
            ])
        case .sessionRemoved(let appID, let id):
            try db.cachedStatement(sql: Self.deleteSession).execute(arguments: [appID, id.description])
        case .app(let app):
            try db.cachedStatement(sql: Self.upsertApp).execute(arguments: [
                app.appID, app.state.rawValue, app.graceEnds?.nanoseconds, app.relaunchEnds?.nanoseconds,
                app.inUseAtTermination, bootID,
            ])
        case .prompt(let prompt):
            try db.cachedStatement(sql: Self.upsertPrompt).execute(arguments: [
                prompt.id.description, prompt.appID, prompt.kind.rawValue, prompt.purposeKey,
                prompt.raisedAt?.nanoseconds, bootID,
            ])
        case .promptRemoved(let id):
            try db.cachedStatement(sql: Self.deletePrompt).execute(arguments: [id.description])
        case .condition(let stored):
            try db.cachedStatement(sql: Self.upsertCondition).execute(arguments: [
                stored.appID, stored.monitor, stored.identifier, stored.condition.latitude,
                stored.condition.longitude, stored.condition.radius, stored.state.rawValue, stored.date,
                stored.position,
            ])
        case .conditionRemoved(let appID, let monitor, let identifier):
            try db.cachedStatement(sql: Self.deleteCondition).execute(arguments: [appID, monitor, identifier])
        }
    }

    static let upsertRecord = """
        INSERT INTO records (app_id, status, provisional, one_time, accuracy, temporary_full_accuracy, always_decision)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id) DO UPDATE SET
            status = excluded.status, provisional = excluded.provisional, one_time = excluded.one_time,
            accuracy = excluded.accuracy, temporary_full_accuracy = excluded.temporary_full_accuracy,
            always_decision = excluded.always_decision
        """

    static let updateLocationServices = "UPDATE settings SET location_services_enabled = ? WHERE id = 1"

    static let upsertSession = """
        INSERT INTO sessions (id, app_id, kind, requirement, purpose_key, owner_pid, linger_ends, boot_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id, id) DO UPDATE SET
            kind = excluded.kind, requirement = excluded.requirement,
            purpose_key = excluded.purpose_key, owner_pid = excluded.owner_pid, linger_ends = excluded.linger_ends,
            boot_id = excluded.boot_id
        """

    static let deleteSession = "DELETE FROM sessions WHERE app_id = ? AND id = ?"

    static let upsertApp = """
        INSERT INTO apps (app_id, state, grace_ends, relaunch_ends, in_use_at_termination, boot_id)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id) DO UPDATE SET
            state = excluded.state, grace_ends = excluded.grace_ends, relaunch_ends = excluded.relaunch_ends,
            in_use_at_termination = excluded.in_use_at_termination, boot_id = excluded.boot_id
        """

    static let upsertPrompt = """
        INSERT INTO prompts (id, app_id, kind, purpose_key, raised_at, boot_id)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET
            app_id = excluded.app_id, kind = excluded.kind, purpose_key = excluded.purpose_key,
            raised_at = excluded.raised_at, boot_id = excluded.boot_id
        """

    static let deletePrompt = "DELETE FROM prompts WHERE id = ?"

    static let upsertCondition = """
        INSERT INTO conditions (app_id, monitor, identifier, latitude, longitude, radius, state, state_date, position)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id, monitor, identifier) DO UPDATE SET
            latitude = excluded.latitude, longitude = excluded.longitude, radius = excluded.radius,
            state = excluded.state, state_date = excluded.state_date, position = excluded.position
        """

    static let deleteCondition = "DELETE FROM conditions WHERE app_id = ? AND monitor = ? AND identifier = ?"
}
