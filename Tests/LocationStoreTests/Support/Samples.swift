import LocationCore

/// Writes and the snapshot they should leave, built by the plain meaning of each ``Persist`` case.
enum Samples {
    /// Every `Persist` case, and between them every raw value of every stored enum, both states of every flag,
    /// absent and present optionals, extreme instants and ids whose text order differs from their order.
    static var everyCase: [Persist] {
        var writes: [Persist] = []
        for (index, status) in AuthorizationStatus.allCases.enumerated() {
            let record = AuthorizationRecord(
                status: status,
                provisional: index % 2 == 0,
                oneTime: index % 3 == 0,
                accuracy: AccuracyAuthorization.allCases[index % AccuracyAuthorization.allCases.count],
                temporaryFullAccuracy: index % 2 == 1,
                alwaysDecision: AlwaysDecision.allCases[index % AlwaysDecision.allCases.count]
            )
            // Every other app is a user's (H1): the uids' extremes among them.
            let users: [UInt32?] = [nil, 0, nil, 1000, nil, UInt32.max - 1]
            writes.append(.record(AppKey("com.ex.app\(index)", user: users[index % users.count]), record))
        }
        writes.append(.locationServices(false))
        let instants: [Instant?] = [nil, .seconds(1000.5), Instant(nanoseconds: .max), Instant(nanoseconds: .min)]
        for (index, state) in AppState.allCases.enumerated() {
            writes.append(
                .app(
                    AppSnapshot(
                        appID: "com.ex.app\(index)",
                        state: state,
                        graceEnds: instants[index % instants.count],
                        relaunchEnds: instants[(index + 1) % instants.count],
                        inUseAtTermination: index % 2 == 0,
                        user: nil
                    )
                )
            )
        }
        var number: UInt64 = 1
        for kind in SessionKind.allCases {
            for requirement in Requirement.allCases {
                writes.append(
                    .session(
                        SessionSnapshot(
                            id: SessionID(epoch: 7, number: number),
                            appID: "com.ex.app\(number % 3)",
                            kind: kind,
                            requirement: requirement,
                            purposeKey: number % 2 == 0 ? "Navigation" : nil,
                            ownerPID: number == 1 ? 0 : Int32(4000 + number),
                            lingerEnds: instants[Int(number) % instants.count],
                            user: nil
                        )
                    )
                )
                number += 1
            }
        }
        // s7-10 sorts after s7-9, though its text sorts before.
        writes.append(
            .session(
                SessionSnapshot(
                    id: SessionID(epoch: 7, number: 10),
                    appID: "com.ex.app0",
                    kind: .explicit,
                    requirement: .always,
                    purposeKey: "Radar",
                    ownerPID: .max,
                    lingerEnds: nil,
                    user: nil
                )
            )
        )
        writes.append(.sessionRemoved(AppKey.noUser("com.ex.app2"), SessionID(epoch: 7, number: 2)))
        for (index, kind) in PromptKind.allCases.enumerated() {
            writes.append(
                .prompt(
                    PromptSnapshot(
                        id: PromptID(epoch: UInt32.max, number: UInt64(index + 9)),
                        appID: "com.ex.app\(index)",
                        kind: kind,
                        purposeKey: kind == .temporaryFullAccuracy ? "Navigation" : nil,
                        raisedAt: instants[index % instants.count],
                        user: nil
                    )
                )
            )
        }
        writes.append(.promptRemoved(PromptID(epoch: UInt32.max, number: 10)))
        for (index, state) in ConditionState.allCases.enumerated() {
            writes.append(
                .condition(
                    ConditionSnapshot(
                        appID: "com.ex.app\(index % 2)",
                        monitor: index == 0 ? "places" : "work",
                        identifier: "c\(index)",
                        condition: CircularCondition(latitude: -33.5 + Double(index), longitude: 179.99, radius: 0.5),
                        state: state,
                        date: state == .unknown ? nil : 1_700_000_000.25,
                        position: Int64(10 - index),
                        user: nil
                    )
                )
            )
        }
        writes.append(.conditionRemoved(AppKey.noUser("com.ex.app1"), monitor: "work", identifier: "c1"))
        writes.append(.conditionRemoved(AppKey.noUser("com.ex.app0"), monitor: "work", identifier: "absent"))
        // Later writes win.
        writes.append(
            .condition(
                ConditionSnapshot(
                    appID: "com.ex.app0",
                    monitor: "places",
                    identifier: "c0",
                    condition: CircularCondition(latitude: 35.68, longitude: 139.76, radius: 100_000),
                    state: .satisfied,
                    date: 1_700_000_100,
                    position: 10,
                    user: nil
                )
            )
        )
        writes.append(
            .record(AppKey.noUser("com.ex.app0"), AuthorizationRecord(status: .denied, alwaysDecision: .declined))
        )
        writes.append(.alwaysUse(AppKey.noUser("com.ex.app0"), .seconds(86_400.5)))
        writes.append(.alwaysUse(AppKey.noUser("com.ex.app1"), .seconds(60)))
        writes.append(.alwaysUse(AppKey.noUser("com.ex.app1"), .seconds(0)))
        writes.append(
            .app(
                AppSnapshot(
                    appID: "com.ex.app1",
                    state: .terminated,
                    graceEnds: nil,
                    relaunchEnds: .seconds(2),
                    inUseAtTermination: true,
                    user: nil
                )
            )
        )
        // The same app id for two users (H1): two rows, each its own; a later write wins.
        let always = AuthorizationRecord(status: .authorizedAlways, alwaysDecision: .granted)
        writes.append(.record(AppKey("com.ex.app0", user: 1000), always))
        writes.append(.record(AppKey("com.ex.app0", user: 65534), AuthorizationRecord(status: .denied)))
        writes.append(.record(AppKey("com.ex.app0", user: 65534), AuthorizationRecord(status: .authorizedWhenInUse)))
        writes.append(.alwaysUse(AppKey("com.ex.app0", user: 65534), .seconds(7)))
        // Policies (H5) and users' own switches (H6): set, replaced and removed; the uid's extremes.
        writes.append(.policy(appID: "com.ex.app0", AppPolicy(setting: .never, precise: nil)))
        writes.append(.policy(appID: "com.ex.app1", AppPolicy(setting: .whileUsing, precise: false)))
        writes.append(.policy(appID: "com.ex.app1", AppPolicy(setting: nil, precise: true)))
        writes.append(.policy(appID: "com.ex.app2", AppPolicy(setting: .always, precise: nil)))
        writes.append(.policy(appID: "com.ex.app2", nil))
        writes.append(.userLocationServices(uid: 0, enabled: false))
        writes.append(.userLocationServices(uid: UInt32.max - 1, enabled: false))
        writes.append(.userLocationServices(uid: 1000, enabled: false))
        writes.append(.userLocationServices(uid: 1000, enabled: true))
        // A forgotten app (F18) leaves nothing: its record, lifecycle and Always use go; the others stay.
        writes.append(.alwaysUse(AppKey.noUser("com.ex.app3"), .seconds(5)))
        writes.append(.appRemoved(AppKey.noUser("com.ex.app3")))
        return writes
    }

    /// What the store should hold after `writes`: each write's plain meaning, in order.
    static func expected(after writes: [Persist], from start: CoreSnapshot = CoreSnapshot()) -> CoreSnapshot {
        var snapshot = start
        for write in writes {
            switch write {
            case .record(let app, let record):
                snapshot.records[app] = record
            case .userLocationServices(let uid, let enabled):
                if enabled {
                    snapshot.usersWithServicesOff.remove(uid)
                } else {
                    snapshot.usersWithServicesOff.insert(uid)
                }
            case .policy(let appID, let policy):
                snapshot.policies[appID] = policy
            case .locationServices(let enabled):
                snapshot.locationServicesEnabled = enabled
            case .session(let session):
                snapshot.sessions.removeAll { $0.id == session.id }
                snapshot.sessions.append(session)
            case .sessionRemoved(let app, let id):
                snapshot.sessions.removeAll { $0.app == app && $0.id == id }
            case .app(let app):
                snapshot.apps.removeAll { $0.app == app.app }
                snapshot.apps.append(app)
            case .prompt(let prompt):
                snapshot.prompts.removeAll { $0.id == prompt.id }
                snapshot.prompts.append(prompt)
            case .promptRemoved(let id):
                snapshot.prompts.removeAll { $0.id == id }
            case .condition(let condition):
                snapshot.conditions.removeAll {
                    ($0.app, $0.monitor, $0.identifier) == (condition.app, condition.monitor, condition.identifier)
                }
                snapshot.conditions.append(condition)
            case .conditionRemoved(let app, let monitor, let identifier):
                snapshot.conditions.removeAll { ($0.app, $0.monitor, $0.identifier) == (app, monitor, identifier) }
            case .alwaysUse(let app, let used):
                // A count back at zero is no count: the store loads only the apps that have one.
                snapshot.alwaysUse[app] = used.nanoseconds == 0 ? nil : used
            case .appRemoved(let app):
                snapshot.apps.removeAll { $0.app == app }
                snapshot.records[app] = nil
                snapshot.alwaysUse[app] = nil
            }
        }
        snapshot.apps.sort { $0.app < $1.app }
        snapshot.sessions.sort { $0.id < $1.id }
        snapshot.prompts.sort { $0.id < $1.id }
        snapshot.conditions.sort { $0.position < $1.position }
        return snapshot
    }
}
