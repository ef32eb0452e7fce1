import GRDB
import LocationCore

// One `Persist` as one statement, prepared once on the writer's connection (`WriteStatement`), its parameters
// bound by `StatementBinder`.
extension LocationStore {
    func apply(_ write: Persist, _ db: Database) throws {
        switch write {
        case .record(let app, let record):
            try run(.upsertRecord, db) {
                $0.bind(app)
                $0.bind(record.status.rawValue)
                $0.bind(record.provisional)
                $0.bind(record.oneTime)
                $0.bind(record.accuracy.rawValue)
                $0.bind(record.temporaryFullAccuracy)
                $0.bind(record.alwaysDecision.rawValue)
            }
        case .locationServices(let enabled):
            try run(.updateLocationServices, db) { $0.bind(enabled) }
        case .userLocationServices(let uid, false):
            try run(.upsertUserSettings, db) {
                $0.bind(Int64(uid))
                $0.bind(false)
            }
        case .userLocationServices(let uid, true):
            // On is every user's default: the row goes, so the table holds only the users whose switch is off.
            try run(.deleteUserSettings, db) { $0.bind(Int64(uid)) }
        case .policy(let appID, let policy?):
            try run(.upsertPolicy, db) {
                $0.bind(appID)
                $0.bind(policy.setting?.rawValue)
                $0.bind(policy.precise.map { Int64($0 ? 1 : 0) })
            }
        case .policy(let appID, nil):
            try run(.deletePolicy, db) { $0.bind(appID) }
        case .session(let session):
            try upsert(session, db)
        case .sessionRemoved(let app, let id):
            try run(.deleteSession, db) {
                $0.bind(app)
                $0.bind(id.description)
            }
        case .app(let app):
            try upsert(app, db)
        case .prompt(let prompt):
            try upsert(prompt, db)
        case .promptRemoved(let id):
            try run(.deletePrompt, db) { $0.bind(id.description) }
        case .condition(let stored):
            try upsert(stored, db)
        case .conditionRemoved(let app, let monitor, let identifier):
            try run(.deleteCondition, db) {
                $0.bind(app)
                $0.bind(monitor)
                $0.bind(identifier)
            }
        case .alwaysUse(let app, let used):
            try run(.upsertAlwaysUse, db) {
                $0.bind(app)
                $0.bind(used.nanoseconds)
            }
        case .appRemoved(let app):
            // The core forgets only an app with no session, prompt or condition (F18): those tables hold none.
            for statement in [WriteStatement.deleteApp, .deleteRecord, .deleteAlwaysUse] {
                try run(statement, db) { $0.bind(app) }
            }
        }
    }

    // This boot's state, one row each (R2); kept apart so that `apply` stays a table of one line per write.

    private func upsert(_ session: SessionSnapshot, _ db: Database) throws {
        try run(.upsertSession, db) {
            $0.bind(session.app)
            $0.bind(session.id.description)
            $0.bind(session.kind.rawValue)
            $0.bind(session.requirement.rawValue)
            $0.bind(session.purposeKey)
            $0.bind(session.ownerPID)
            $0.bind(session.lingerEnds?.nanoseconds)
            $0.bind(bootID)
        }
    }

    private func upsert(_ app: AppSnapshot, _ db: Database) throws {
        try run(.upsertApp, db) {
            $0.bind(app.app)
            $0.bind(app.state.rawValue)
            $0.bind(app.graceEnds?.nanoseconds)
            $0.bind(app.relaunchEnds?.nanoseconds)
            $0.bind(app.inUseAtTermination)
            $0.bind(bootID)
        }
    }

    private func upsert(_ prompt: PromptSnapshot, _ db: Database) throws {
        try run(.upsertPrompt, db) {
            $0.bind(prompt.id.description)
            $0.bind(prompt.app)
            $0.bind(prompt.kind.rawValue)
            $0.bind(prompt.purposeKey)
            $0.bind(prompt.raisedAt?.nanoseconds)
            $0.bind(bootID)
        }
    }

    private func upsert(_ stored: ConditionSnapshot, _ db: Database) throws {
        try run(.upsertCondition, db) {
            $0.bind(stored.app)
            $0.bind(stored.monitor)
            $0.bind(stored.identifier)
            $0.bind(stored.condition.latitude)
            $0.bind(stored.condition.longitude)
            $0.bind(stored.condition.radius)
            $0.bind(stored.state.rawValue)
            $0.bind(stored.date)
            $0.bind(stored.position)
        }
    }

    fileprivate static let upsertRecord = """
        INSERT INTO records (
            app_id, uid, status, provisional, one_time, accuracy, temporary_full_accuracy, always_decision
        )
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id, uid) DO UPDATE SET
            status = excluded.status, provisional = excluded.provisional, one_time = excluded.one_time,
            accuracy = excluded.accuracy, temporary_full_accuracy = excluded.temporary_full_accuracy,
            always_decision = excluded.always_decision
        """

    fileprivate static let updateLocationServices = "UPDATE settings SET location_services_enabled = ? WHERE id = 1"

    fileprivate static let upsertUserSettings = """
        INSERT INTO user_settings (uid, location_services_enabled) VALUES (?, ?)
        ON CONFLICT (uid) DO UPDATE SET location_services_enabled = excluded.location_services_enabled
        """

    fileprivate static let deleteUserSettings = "DELETE FROM user_settings WHERE uid = ?"

    fileprivate static let upsertPolicy = """
        INSERT INTO policies (app_id, setting, precise) VALUES (?, ?, ?)
        ON CONFLICT (app_id) DO UPDATE SET setting = excluded.setting, precise = excluded.precise
        """

    fileprivate static let deletePolicy = "DELETE FROM policies WHERE app_id = ?"

    fileprivate static let upsertSession = """
        INSERT INTO sessions (app_id, uid, id, kind, requirement, purpose_key, owner_pid, linger_ends, boot_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id, uid, id) DO UPDATE SET
            kind = excluded.kind, requirement = excluded.requirement,
            purpose_key = excluded.purpose_key, owner_pid = excluded.owner_pid, linger_ends = excluded.linger_ends,
            boot_id = excluded.boot_id
        """

    fileprivate static let deleteSession = "DELETE FROM sessions WHERE app_id = ? AND uid = ? AND id = ?"

    fileprivate static let upsertApp = """
        INSERT INTO apps (app_id, uid, state, grace_ends, relaunch_ends, in_use_at_termination, boot_id)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id, uid) DO UPDATE SET
            state = excluded.state, grace_ends = excluded.grace_ends, relaunch_ends = excluded.relaunch_ends,
            in_use_at_termination = excluded.in_use_at_termination, boot_id = excluded.boot_id
        """

    fileprivate static let upsertPrompt = """
        INSERT INTO prompts (id, app_id, uid, kind, purpose_key, raised_at, boot_id)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET
            app_id = excluded.app_id, uid = excluded.uid, kind = excluded.kind, purpose_key = excluded.purpose_key,
            raised_at = excluded.raised_at, boot_id = excluded.boot_id
        """

    fileprivate static let deletePrompt = "DELETE FROM prompts WHERE id = ?"

    fileprivate static let upsertCondition = """
        INSERT INTO conditions (
            app_id, uid, monitor, identifier, latitude, longitude, radius, state, state_date, position
        )
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (app_id, uid, monitor, identifier) DO UPDATE SET
            latitude = excluded.latitude, longitude = excluded.longitude, radius = excluded.radius,
            state = excluded.state, state_date = excluded.state_date, position = excluded.position
        """

    fileprivate static let deleteCondition =
        "DELETE FROM conditions WHERE app_id = ? AND uid = ? AND monitor = ? AND identifier = ?"

    fileprivate static let upsertAlwaysUse = """
        INSERT INTO always_use (app_id, uid, used) VALUES (?, ?, ?)
        ON CONFLICT (app_id, uid) DO UPDATE SET used = excluded.used
        """

    fileprivate static let deleteApp = "DELETE FROM apps WHERE app_id = ? AND uid = ?"
    fileprivate static let deleteRecord = "DELETE FROM records WHERE app_id = ? AND uid = ?"
    fileprivate static let deleteAlwaysUse = "DELETE FROM always_use WHERE app_id = ? AND uid = ?"
}

/// The statements the store writes with: each is prepared once on the writer's connection and kept
/// (``LocationStore/statement(_:_:)``), not looked up in GRDB's cache by its text, whose hashing was a
/// tenth of a session write.
enum WriteStatement: Int, CaseIterable {
    case begin, commit
    case upsertRecord, updateLocationServices, upsertSession, deleteSession, upsertApp, upsertPrompt, deletePrompt
    case upsertCondition, deleteCondition, upsertAlwaysUse, deleteApp, deleteRecord, deleteAlwaysUse
    case upsertUserSettings, deleteUserSettings, upsertPolicy, deletePolicy

    var sql: String {
        switch self {
        case .begin: "BEGIN IMMEDIATE"
        case .commit: "COMMIT"
        case .upsertRecord: LocationStore.upsertRecord
        case .updateLocationServices: LocationStore.updateLocationServices
        case .upsertSession: LocationStore.upsertSession
        case .deleteSession: LocationStore.deleteSession
        case .upsertApp: LocationStore.upsertApp
        case .upsertPrompt: LocationStore.upsertPrompt
        case .deletePrompt: LocationStore.deletePrompt
        case .upsertCondition: LocationStore.upsertCondition
        case .deleteCondition: LocationStore.deleteCondition
        case .upsertAlwaysUse: LocationStore.upsertAlwaysUse
        case .deleteApp: LocationStore.deleteApp
        case .deleteRecord: LocationStore.deleteRecord
        case .deleteAlwaysUse: LocationStore.deleteAlwaysUse
        case .upsertUserSettings: LocationStore.upsertUserSettings
        case .deleteUserSettings: LocationStore.deleteUserSettings
        case .upsertPolicy: LocationStore.upsertPolicy
        case .deletePolicy: LocationStore.deletePolicy
        }
    }
}
