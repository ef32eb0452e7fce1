import Foundation
import LocationCore
import LocationTestSupport
import Testing

@testable import LocationStore

/// SEMANTICS §10 R6–R9: the store's files in the hands of a hostile local user, or of a disk that lost them.
@Suite struct HostileFilesTests {
    static let record = AuthorizationRecord(
        status: .authorizedAlways,
        provisional: false,
        oneTime: false,
        accuracy: .fullAccuracy,
        temporaryFullAccuracy: false,
        alwaysDecision: .granted
    )

    static func condition(_ identifier: String, position: Int64) -> ConditionSnapshot {
        ConditionSnapshot(
            appID: "com.ex.maps",
            monitor: "places\u{0}hidden",
            identifier: identifier,
            condition: CircularCondition(latitude: 35.681236, longitude: 139.767125, radius: 200),
            state: .unknown,
            date: nil,
            position: position,
            user: nil
        )
    }

    /// The names in `directory` that start with `prefix`.
    static func files(in directory: String, startingWith prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(prefix) }.sorted()
    }

    @Test("R8: text with a NUL inside survives a restart whole, and identifiers that differ after it stay two")
    func nulInsideText() throws {
        try TemporaryDirectory.with { directory in
            let conditions = [Self.condition("home\u{0}a", position: 1), Self.condition("home\u{0}b", position: 2)]
            do {
                let store = try LocationStore(directory: directory.path, bootID: "boot-a")
                try store.apply(conditions.map { .condition($0) })
            }
            let loaded = try LocationStore(directory: directory.path, bootID: "boot-a").load()
            #expect(loaded.conditions == conditions)
        }
    }

    @Test("R6: a store whose state directory another process has locked is refused, naming that process")
    func lockedByAnotherProcess() throws {
        try TemporaryDirectory.with { directory in
            // Another process takes the lock as a locd would, and says so once it holds it.
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            holder.arguments = [
                "python3", "-c",
                """
                import fcntl, os, sys
                f = open(sys.argv[1], "w"); fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                f.write(str(os.getpid()) + "\\n"); f.flush(); print("locked", flush=True); sys.stdin.read()
                """,
                directory.path + "/lock",
            ]
            let input = Pipe()
            let output = Pipe()
            holder.standardInput = input
            holder.standardOutput = output
            try holder.run()
            defer {
                input.fileHandleForWriting.closeFile()
                holder.waitForExit()
            }
            try #require(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("locked"))
            let error = #expect(throws: StoreError.self) {
                try LocationStore(directory: directory.path, bootID: "boot-a")
            }
            guard case .inUse(let path, let pid)? = error else {
                Issue.record("expected inUse, got \(String(describing: error))")
                return
            }
            #expect(path == directory.path + "/lock")
            #expect(pid == String(holder.processIdentifier))
            #expect(error?.description.contains("state-dir") == true)
            // Nothing was opened: no store file was created behind the lock.
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/locd.sqlite"))
        }
    }

    @Test("R6: a closed store leaves its directory unlocked, though a copy of the lock's descriptor lives on")
    func closedStoreUnlocks() throws {
        try TemporaryDirectory.with { directory in
            var copy: Int32 = -1
            do {
                let store = try LocationStore(directory: directory.path, bootID: "boot-a")
                try store.apply([.record(AppKey.noUser("com.ex.maps"), Self.record)])
                // What a child forked at this moment holds until it execs: a duplicate of the lock's descriptor.
                let lockPath = try #require(
                    realpath(directory.path, nil).map { pointer in
                        defer { free(pointer) }
                        return String(cString: pointer) + "/lock"
                    }
                )
                let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
                let held = try #require(
                    descriptors.compactMap(Int32.init).first {
                        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == lockPath
                    }
                )
                copy = dup(held)
            }
            defer { close(copy) }
            #expect(copy >= 0)
            let reopened = try LocationStore(directory: directory.path, bootID: "boot-a")
            #expect(try reopened.load().records[AppKey.noUser("com.ex.maps")] == Self.record)
        }
    }

    @Test("R7: a store whose file was deleted under it fails every commit instead of acknowledging it")
    func deletedUnderTheStore() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            try store.apply([.record(AppKey.noUser("com.ex.maps"), Self.record)])
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                try FileManager.default.removeItem(atPath: directory.path + "/" + name)
            }
            let error = #expect(throws: StoreError.self) {
                try store.apply([.record(AppKey.noUser("com.ex.run"), Self.record)])
            }
            guard case .filesChanged(let path, _)? = error else {
                Issue.record("expected filesChanged, got \(String(describing: error))")
                return
            }
            #expect(path == store.path)
        }
    }

    @Test("R9: a log with a garbage header is set aside, named, and the database's records are kept")
    func garbageLog() throws {
        try TemporaryDirectory.with { directory in
            do {
                let store = try LocationStore(directory: directory.path, bootID: "boot-a")
                try store.apply([.record(AppKey.noUser("com.ex.maps"), Self.record)])
            }
            // Closed cleanly, the log was copied and removed; a hostile user writes one of garbage.
            let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            try garbage.write(to: URL(fileURLWithPath: directory.path + "/locd.sqlite-wal"))
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            let aside = try Self.files(in: directory.path, startingWith: "locd.sqlite-wal.damaged-")
            try #require(aside.count == 1)
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + aside[0])) == garbage)
            #expect(store.damaged?.description.contains(directory.path + "/locd.sqlite-wal") == true)
            #expect(try store.load().records[AppKey.noUser("com.ex.maps")] == Self.record)
        }
    }

    @Test("R9: a log cut short inside its header is set aside")
    func logCutShort() throws {
        try TemporaryDirectory.with { directory in
            _ = try LocationStore(directory: directory.path, bootID: "boot-a")
            try Data([0x37, 0x7F, 0x06, 0x82, 0, 0x2D]).write(
                to: URL(fileURLWithPath: directory.path + "/locd.sqlite-wal")
            )
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            #expect(try Self.files(in: directory.path, startingWith: "locd.sqlite-wal.damaged-").count == 1)
            #expect(store.damaged?.reason.contains("cut short") == true)
        }
    }

    @Test("R9: an emptied database is set aside and named, not taken for a new store without a word")
    func emptiedDatabase() throws {
        try TemporaryDirectory.with { directory in
            do {
                let store = try LocationStore(directory: directory.path, bootID: "boot-a")
                try store.apply([.record(AppKey.noUser("com.ex.maps"), Self.record)])
            }
            #expect(truncate(directory.path + "/locd.sqlite", 0) == 0)
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            #expect(try Self.files(in: directory.path, startingWith: "locd.sqlite.damaged-").count == 1)
            #expect(store.damaged?.description.contains(directory.path + "/locd.sqlite") == true)
            #expect(try store.load().records.isEmpty)
            // The new store is marked in turn: a second start finds nothing wrong.
            _ = consume store
            #expect(try LocationStore(directory: directory.path, bootID: "boot-a").damaged == nil)
        }
    }

    @Test("R9: a database replaced by an empty SQLite file is set aside and named")
    func databaseWithoutTables() throws {
        try TemporaryDirectory.with { directory in
            do {
                let store = try LocationStore(directory: directory.path, bootID: "boot-a")
                try store.apply([.record(AppKey.noUser("com.ex.maps"), Self.record)])
            }
            try FileManager.default.removeItem(atPath: directory.path + "/locd.sqlite")
            let empty = Process()
            empty.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            empty.arguments = [
                "python3", "-c", "import sqlite3; sqlite3.connect('\(directory.path)/locd.sqlite').execute('VACUUM')",
            ]
            try empty.run()
            try #require(empty.waitForExit().status == 0)
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            #expect(try Self.files(in: directory.path, startingWith: "locd.sqlite.damaged-").count == 1)
            #expect(store.damaged?.reason.contains("no tables") == true)
        }
    }
}
