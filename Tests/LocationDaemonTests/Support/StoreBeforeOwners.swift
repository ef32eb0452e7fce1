import Foundation
import GRDB
import LocationTestSupport

@testable import LocationStore

/// A store as locd left it before decisions belonged to users (SEMANTICS H3): the schema up to `v5-owners`, with one
/// record of Always for each app id given and no uid kept, in the state directory of a daemon not yet started.
enum StoreBeforeOwners {
    static func write(alwaysFor appIDs: [String], in daemon: DaemonProcess) throws {
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: daemon.stateDirectory + "/locd.sqlite")
        try StoreSchema.migrator.migrate(queue, upTo: "v5-owners")
        try queue.write { db in
            for appID in appIDs {
                try db.execute(
                    sql: """
                        INSERT INTO records (app_id, status, provisional, one_time, accuracy, temporary_full_accuracy,
                            always_decision)
                        VALUES (?, 'authorizedAlways', 0, 0, 'fullAccuracy', 0, 'granted')
                        """,
                    arguments: [appID]
                )
            }
        }
        try queue.close()
    }
}
