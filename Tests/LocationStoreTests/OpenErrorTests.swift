import Foundation
import GRDB
import LocationCore
import LocationTestSupport
import Testing

@testable import LocationStore

/// R4: opening the store at start-up either works or stops with a message that names the file and what to do.
@Suite struct OpenErrorTests {
    @Test("R4: a missing state directory is created with mode 0700")
    func createsDirectory() throws {
        try TemporaryDirectory.with { directory in
            let state = directory.path + "/var/lib/locd"
            let store = try LocationStore(directory: state, bootID: "boot-a")
            #expect(store.path == state + "/locd.sqlite")
            let attributes = try FileManager.default.attributesOfItem(atPath: state)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
            #expect(FileManager.default.fileExists(atPath: store.path))
            #expect(try LocationStore(directory: state + "/", bootID: "boot-a").path == store.path)
        }
    }

    @Test("R4: a state directory that cannot be created fails, naming it")
    func directoryCannotBeCreated() throws {
        try TemporaryDirectory.with { directory in
            let file = directory.path + "/file"
            try Data("not a directory".utf8).write(to: URL(fileURLWithPath: file))
            let state = file + "/locd"
            let error = #expect(throws: StoreError.self) { try LocationStore(directory: state, bootID: "boot-a") }
            guard case .directoryUnavailable(let path, _)? = error else {
                Issue.record("expected directoryUnavailable, got \(String(describing: error))")
                return
            }
            #expect(path == state)
            #expect(error?.description.contains(state) == true)
            #expect(error?.description.contains("state-dir") == true)
        }
    }

    @Test("R4: a file at locd.sqlite that is not SQLite fails, naming it")
    func notSQLite() throws {
        try TemporaryDirectory.with { directory in
            let path = directory.path + "/locd.sqlite"
            let garbage = String(repeating: "this is not a database\n", count: 200)
            try Data(garbage.utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: StoreError.self) {
                try LocationStore(directory: directory.path, bootID: "boot-a")
            }
            guard case .notAStore(let errorPath, _)? = error else {
                Issue.record("expected notAStore, got \(String(describing: error))")
                return
            }
            #expect(errorPath == path)
            #expect(error?.description.contains(path) == true)
            #expect(error?.description.contains("move it aside") == true)
            // The file is left as it was.
            #expect(try String(contentsOfFile: path, encoding: .utf8) == garbage)
        }
    }

    @Test("R4: another program's SQLite database is not taken for a store, nor changed")
    func foreignDatabase() throws {
        try TemporaryDirectory.with { directory in
            let path = directory.path + "/locd.sqlite"
            do {
                let foreign = try DatabaseQueue(path: path)
                try foreign.write { try $0.execute(sql: "CREATE TABLE notes (text TEXT)") }
            }
            let error = #expect(throws: StoreError.self) {
                try LocationStore(directory: directory.path, bootID: "boot-a")
            }
            guard case .notAStore(let errorPath, _)? = error else {
                Issue.record("expected notAStore, got \(String(describing: error))")
                return
            }
            #expect(errorPath == path)
            let mode = try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
            #expect(mode == "delete")
        }
    }

    @Test("R4: a directory in place of locd.sqlite fails, naming it")
    func cannotOpen() throws {
        try TemporaryDirectory.with { directory in
            let path = directory.path + "/locd.sqlite"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            let error = #expect(throws: StoreError.self) {
                try LocationStore(directory: directory.path, bootID: "boot-a")
            }
            guard case .cannotOpen(let errorPath, _)? = error else {
                Issue.record("expected cannotOpen, got \(String(describing: error))")
                return
            }
            #expect(errorPath == path)
            #expect(error?.description.contains(path) == true)
        }
    }

    @Test("R4: a store migrated by a newer locd is refused, not rewritten")
    func newerStore() throws {
        try TemporaryDirectory.with { directory in
            let path = try LocationStore(directory: directory.path, bootID: "boot-a").path
            try DatabaseQueue(path: path).write {
                try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-future')")
            }
            let error = #expect(throws: StoreError.self) {
                try LocationStore(directory: directory.path, bootID: "boot-a")
            }
            #expect(error == .newerStore(path: path, unknownMigrations: ["v9-future"]))
            #expect(error?.description.contains("newer locd") == true)
        }
    }

    @Test("R4: a stored value this locd does not know fails the load, naming row and column")
    func unknownValue() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            try store.apply([.record(AppKey.noUser("com.ex.maps"), AuthorizationRecord())])
            try store.queue.write { try $0.execute(sql: "UPDATE records SET status = 'maybe'") }
            let error = #expect(throws: StoreError.self) { try store.load() }
            guard case .unreadable(let path, let reason)? = error else {
                Issue.record("expected unreadable, got \(String(describing: error))")
                return
            }
            #expect(path == store.path)
            #expect(reason.contains("com.ex.maps") && reason.contains("status") && reason.contains("maybe"))
        }
    }
}
