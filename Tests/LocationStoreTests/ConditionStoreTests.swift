import LocationCore
import LocationStore
import LocationTestSupport
import Testing

/// U4: monitored conditions in the store — kept across boots, unlike sessions, and restored into the core.
@Suite struct ConditionStoreTests {
    static let maps = Manifest(
        appID: "com.ex.maps",
        whenInUseUsageDescription: "Shows you on the map",
        alwaysAndWhenInUseUsageDescription: "Tracks your trips"
    )

    static let station = CircularCondition(latitude: 35.681236, longitude: 139.767125, radius: 200)

    @Test("U4: conditions, their states and their order survive a reboot, while this boot's sessions do not")
    func keptAcrossBoots() throws {
        try TemporaryDirectory.with { directory in
            var conditions: [ConditionSnapshot] = []
            for index in 0..<3 {
                let offset = Double(index)
                let date: Double? = index == 0 ? nil : 1_700_000_000.5 + offset
                conditions.append(
                    ConditionSnapshot(
                        appID: "com.ex.maps",
                        monitor: "places",
                        identifier: "c\(index)",
                        condition: CircularCondition(latitude: 35 + offset, longitude: -0.5, radius: 150.25),
                        state: ConditionState.allCases[index],
                        date: date,
                        position: Int64(3 - index),
                        user: nil
                    )
                )
            }
            do {
                let store = try LocationStore(directory: directory.path, bootID: "boot-a")
                try store.apply(conditions.map { .condition($0) })
                try store.apply([.session(Samples.everyCase.compactMap(\.session).first!)])
            }
            let loaded = try LocationStore(directory: directory.path, bootID: "boot-b").load()
            #expect(loaded.sessions.isEmpty)
            #expect(loaded.conditions == Array(conditions.reversed()), "in the order they were added: by position")
        }
    }

    @Test("U4: a core's condition writes, restored from the store, give the same monitors and states")
    func restoredFromStore() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            var driver = CoreDriver(manifests: [Self.maps], persist: store.apply)
            let admin = try driver.connect(pid: 1)
            try driver.call(admin, .setAuthorization(appID: "com.ex.maps", setting: .always, precise: nil, user: nil))
            let maps = try driver.connect(pid: 4242)
            try driver.call(maps, .hello(appID: "com.ex.maps", state: .foreground))
            try driver.call(maps, .addCondition(monitor: "places", identifier: "station", condition: Self.station))
            try driver.call(maps, .addCondition(monitor: "places", identifier: "gone", condition: Self.station))
            try driver.call(maps, .addCondition(monitor: "work", identifier: "office", condition: Self.station))
            try driver.call(maps, .removeCondition(monitor: "places", identifier: "gone"))
            let fix = Fix(latitude: 35.681236, longitude: 139.767125, horizontalAccuracy: 5, timestamp: 1_700_000_000)
            try driver.send(.fix(fix))

            let loaded = try LocationStore(directory: directory.path, bootID: "boot-b").load()
            #expect(loaded.conditions == driver.core.snapshot.conditions)
            #expect(loaded.conditions.map(\.identifier) == ["station", "office"])
            #expect(loaded.conditions.map(\.state) == [.satisfied, .satisfied])
            #expect(loaded.conditions.map(\.date) == [1_700_000_000, 1_700_000_000])

            let restored = LocationCore(
                configuration: CoreConfiguration(),
                manifests: [Self.maps],
                restoring: loaded,
                epoch: 2,
                at: driver.now
            )
            #expect(restored.snapshot.conditions == loaded.conditions)
        }
    }
}

extension Persist {
    fileprivate var session: SessionSnapshot? {
        if case .session(let session) = self { session } else { nil }
    }
}
