import Foundation
import LocationCore
import LocationTestSupport
import Testing

@testable import LocationStore

/// R2 and S3: what survives a reboot, and the id epoch that survives everything.
@Suite struct BootTests {
    @Test("R2: state from another boot is discarded at load; records and the switch are kept")
    func staleBootDiscarded() throws {
        try TemporaryDirectory.with { directory in
            let record = AuthorizationRecord(status: .authorizedAlways, alwaysDecision: .granted)
            do {
                let before = try LocationStore(directory: directory.path, bootID: "boot-a")
                try before.apply(Samples.everyCase)
                try before.apply([.record(AppKey.noUser("com.ex.maps"), record), .locationServices(false)])
            }
            let after = try LocationStore(directory: directory.path, bootID: "boot-b")
            let loaded = try after.load()
            #expect(loaded.apps.isEmpty)
            #expect(loaded.sessions.isEmpty)
            #expect(loaded.prompts.isEmpty)
            #expect(loaded.locationServicesEnabled == false)
            #expect(loaded.records[AppKey.noUser("com.ex.maps")] == record)
            #expect(
                loaded.records
                    == Samples.expected(after: Samples.everyCase).records.merging([AppKey.noUser("com.ex.maps"): record]
                    ) { $1 }
            )
            // H5, H6: the administrator's settings for every user and each user's own switch, across boots.
            #expect(loaded.policies == Samples.expected(after: Samples.everyCase).policies)
            #expect(loaded.usersWithServicesOff == Samples.expected(after: Samples.everyCase).usersWithServicesOff)
            #expect(!loaded.policies.isEmpty && !loaded.usersWithServicesOff.isEmpty)
            // Going back to the first boot's id brings nothing back: the stale rows are gone, not hidden.
            #expect(try LocationStore(directory: directory.path, bootID: "boot-a").load().sessions.isEmpty)
        }
    }

    @Test("R2: state of this boot is kept across a daemon restart")
    func sameBootKept() throws {
        try TemporaryDirectory.with { directory in
            let session = DurabilityTests.session(3)
            do {
                let before = try LocationStore(directory: directory.path, bootID: "boot-b")
                try before.apply([.session(session), .app(DurabilityTests.app(3)), .prompt(DurabilityTests.prompt(3))])
            }
            let loaded = try LocationStore(directory: directory.path, bootID: "boot-b").load()
            #expect(loaded.sessions == [session])
            #expect(loaded.apps == [DurabilityTests.app(3)])
            #expect(loaded.prompts == [DurabilityTests.prompt(3)])
        }
    }

    @Test("R2: a write re-tags a row with the boot that wrote it")
    func rewriteRetags() throws {
        try TemporaryDirectory.with { directory in
            let app = DurabilityTests.app(1)
            try LocationStore(directory: directory.path, bootID: "boot-a").apply([.app(app)])
            let current = try LocationStore(directory: directory.path, bootID: "boot-b")
            // Written again in this boot before any load: it is this boot's state now.
            try current.apply([.app(app)])
            #expect(try current.load().apps == [app])
        }
    }

    @Test("S3: the epoch increases at every start, across reopening and reboots")
    func epochIncreases() throws {
        try TemporaryDirectory.with { directory in
            do {
                let store = try LocationStore(directory: directory.path, bootID: "boot-a")
                #expect(try store.nextEpoch() == 1)
                #expect(try store.nextEpoch() == 2)
            }
            #expect(try LocationStore(directory: directory.path, bootID: "boot-a").nextEpoch() == 3)
            let rebooted = try LocationStore(directory: directory.path, bootID: "boot-b")
            _ = try rebooted.load()
            #expect(try rebooted.nextEpoch() == 4)
        }
    }

    @Test("R2: the boot id is the kernel's, trimmed")
    func currentBootID() throws {
        let id = try LocationStore.currentBootID()
        #expect(id.count == 36)
        #expect(UUID(uuidString: id) != nil)
        #expect(id == (try LocationStore.currentBootID()))
    }

    @Test("R2: an unreadable boot id names the file")
    func unreadableBootID() throws {
        let path = "/nonexistent/locd-test/boot_id"
        let error = #expect(throws: StoreError.self) { try LocationStore.bootID(at: path) }
        #expect(error?.path == path)
        #expect(error?.description.contains(path) == true)
    }
}
