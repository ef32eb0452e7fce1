import GRDB
import GRDBSQLite
import LocationCore

/// Binds a write statement's parameters, in order, straight from Swift values.
///
/// GRDB's `execute(arguments:)` boxes each parameter in an existential and builds an array of
/// `DatabaseValue`s before binding them: more than SQLite's own work for the store's small writes, which
/// run for every session created, lingering or ended. The store's statements are fixed, so their parameters
/// are bound here, on the statement the store prepared once and keeps (``LocationStore/run(_:_:_:)``).
///
/// Text is copied into `scratch`, which outlives the statement's run, and bound there without SQLite taking a
/// copy of its own (a `malloc` and a `free` per parameter); text that does not fit is bound as a copy.
struct StatementBinder {
    private let statement: SQLiteStatement
    private let scratch: UnsafeMutableRawBufferPointer
    private var used = 0
    private var index: Int32 = 0
    /// The first `sqlite3_bind_*` that failed, if any.
    private(set) var failure: Int32?

    /// - Parameter scratch: memory that stays unchanged until the statement has run and been reset.
    init(_ statement: SQLiteStatement, scratch: UnsafeMutableRawBufferPointer) {
        self.statement = statement
        self.scratch = scratch
    }

    mutating func bind(_ text: String) {
        index += 1
        var text = text
        let code = text.withUTF8 { bytes in
            if let start = scratch.baseAddress, bytes.count <= scratch.count - used {
                // Never a null address, so empty text stays empty text, not NULL.
                let copy = start + used
                if let source = bytes.baseAddress { copy.copyMemory(from: source, byteCount: bytes.count) }
                used += bytes.count
                return sqlite3_bind_text(
                    statement,
                    index,
                    copy.assumingMemoryBound(to: CChar.self),
                    Int32(bytes.count),
                    nil
                )
            }
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(statement, index, "", 0, sqliteTransient)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(statement, index, $0, Int32(bytes.count), sqliteTransient)
            }
        }
        check(code)
    }

    mutating func bind(_ text: String?) {
        guard let text else { return bindNull() }
        bind(text)
    }

    mutating func bind(_ value: Int64) {
        index += 1
        check(sqlite3_bind_int64(statement, index, value))
    }

    mutating func bind(_ value: Int64?) {
        guard let value else { return bindNull() }
        bind(value)
    }

    /// A user's app as two parameters: its id, then its user's uid, `-1` for the app of no user (H2).
    mutating func bind(_ app: AppKey) {
        bind(app.appID)
        bind(app.user.map(Int64.init) ?? StoreSchema.noUser)
    }

    mutating func bind(_ value: Int32) { bind(Int64(value)) }

    mutating func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }

    mutating func bind(_ value: Double) {
        index += 1
        check(sqlite3_bind_double(statement, index, value))
    }

    mutating func bind(_ value: Double?) {
        guard let value else { return bindNull() }
        bind(value)
    }

    private mutating func bindNull() {
        index += 1
        check(sqlite3_bind_null(statement, index))
    }

    private mutating func check(_ code: Int32) {
        if code != SQLITE_OK && failure == nil { failure = code }
    }
}

/// SQLite copies a value bound with this destructor before the bind returns.
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

extension LocationStore {
    /// Runs `write` on the writer's connection `db`, with the parameters `bind` binds in order; throws
    /// SQLite's error as GRDB would, with its result code and message.
    func run(_ write: WriteStatement, _ db: Database, _ bind: (inout StatementBinder) -> Void = { _ in }) throws {
        let statement = try self.statement(write, db).sqliteStatement
        // Binding replaces every parameter; the reset only clears what a failed run may have left.
        sqlite3_reset(statement)
        var binder = StatementBinder(statement, scratch: bindScratch)
        bind(&binder)
        if let failure = binder.failure {
            sqlite3_reset(statement)
            throw DatabaseError(resultCode: ResultCode(rawValue: failure), message: db.lastErrorMessage, sql: write.sql)
        }
        let code = sqlite3_step(statement)
        let message = code == SQLITE_DONE ? nil : db.lastErrorMessage
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: write.sql)
        }
    }
}
