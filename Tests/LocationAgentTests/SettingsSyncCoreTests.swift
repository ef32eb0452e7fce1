import Testing

@testable import LocationAgent

/// How locd-agent keeps locd, the permission store and GNOME's switch as one (SEMANTICS N7–N13), decided by the core
/// alone: what each side says in, actions out, no bus, no daemon, no clock.
@Suite("locd-agent: the desktop's settings, decided")
struct SettingsSyncCoreTests {
    typealias Core = SettingsSyncCore
    typealias App = SettingsSyncCore.LocdState.App
    static let now = 1_800_000_000.0
    static let maps = "com.ex.maps"

    static func locd(_ apps: [String: DesktopGrant], using: Set<String> = [], switchOn: Bool? = true) -> Core.LocdState
    {
        Core.LocdState(
            apps: apps.mapValues { App(grant: $0, allowed: $0 == .precise || $0 == .approximate) },
            using: using,
            switchOn: switchOn
        )
    }

    /// A core that read locd (`apps`) and the store (`entries`), with `agreed` kept from before.
    static func started(
        _ apps: [String: DesktopGrant],
        _ entries: [String: [String]],
        agreed: AgreedSettings = AgreedSettings()
    ) -> (Core, [Core.Action]) {
        var core = Core(agreed: agreed)
        var actions = core.start()
        actions += core.locdRead(locd(apps), now: now)
        actions += core.storeRead(entries, now: now)
        return (core, actions)
    }

    static func writes(_ actions: [Core.Action]) -> [Core.Action] {
        actions.filter {
            if case .writeStore = $0 { return true }
            if case .setAuthorization = $0 { return true }
            return false
        }
    }

    @Test("N7: locd's settings and the store's levels are the same four grants, both ways")
    func grants() {
        #expect(DesktopGrant(label: "never", fullAccuracy: true) == .never)
        #expect(DesktopGrant(label: "restricted", fullAccuracy: true) == .never)
        #expect(DesktopGrant(label: "askNextTime", fullAccuracy: true) == .ask)
        #expect(DesktopGrant(label: "whileUsing", fullAccuracy: true) == .precise)
        #expect(DesktopGrant(label: "always", fullAccuracy: false) == .approximate)
        #expect(DesktopGrant(entry: ["NONE", "1"]) == .never)
        for level in ["COUNTRY", "CITY", "NEIGHBORHOOD", "STREET"] {
            #expect(DesktopGrant(entry: [level, "1"]) == .approximate)
        }
        #expect(DesktopGrant(entry: ["EXACT", "1"]) == .precise)
        // Not exactly two strings with a known LEVEL: no decision.
        #expect(DesktopGrant(entry: ["EXACT"]) == nil)
        #expect(DesktopGrant(entry: ["EXACT", "1", "x"]) == nil)
        #expect(DesktopGrant(entry: ["exact", "1"]) == nil)
        #expect(DesktopGrant.precise.level == "EXACT" && DesktopGrant.approximate.level == "CITY")
        #expect(DesktopGrant.never.level == "NONE" && DesktopGrant.ask.level == nil)
    }

    @Test("N7, N9: a grant made in locd is written to the store as [LEVEL, now]; its echo changes nothing")
    func locdToStore() {
        var (core, _) = Self.started([Self.maps: .ask], [:])
        _ = core.locdChanged()
        let actions = core.locdRead(Self.locd([Self.maps: .precise]), now: Self.now)
        #expect(Self.writes(actions) == [.writeStore(app: Self.maps, level: "EXACT", lastUsed: "1800000000")])
        let echo = core.storeRead([Self.maps: ["EXACT", "1800000000"]], now: Self.now + 1)
        #expect(Self.writes(echo).isEmpty)
        #expect(core.agreed.apps[Self.maps] == .precise)
    }

    @Test("N7: Never keeps the entry's LAST_USED; Ask Next Time removes the entry")
    func neverAndAsk() {
        var (core, _) = Self.started([Self.maps: .precise], [Self.maps: ["EXACT", "42"]])
        _ = core.locdChanged()
        let never = core.locdRead(Self.locd([Self.maps: .never]), now: Self.now)
        #expect(Self.writes(never) == [.writeStore(app: Self.maps, level: "NONE", lastUsed: "42")])
        _ = core.storeRead([Self.maps: ["NONE", "42"]], now: Self.now)
        _ = core.locdChanged()
        let ask = core.locdRead(Self.locd([Self.maps: .ask]), now: Self.now)
        #expect(Self.writes(ask) == [.writeStore(app: Self.maps, level: nil, lastUsed: "1800000000")])
    }

    @Test("N9: a store change is copied to locd whatever LAST_USED it has; one of LAST_USED alone copies nothing")
    func storeToLocd() {
        var (core, _) = Self.started([Self.maps: .precise], [Self.maps: ["EXACT", "42"]])
        #expect(Self.writes(core.storeRead([Self.maps: ["EXACT", "7"]], now: Self.now)).isEmpty)
        let off = core.storeRead([Self.maps: ["NONE", "7"]], now: Self.now)
        #expect(Self.writes(off) == [.setAuthorization(app: Self.maps, setting: "never", precise: nil)])
        // A read that crossed the change still shows the old record: it is not taken for a newer decision.
        _ = core.locdChanged()
        #expect(Self.writes(core.locdRead(Self.locd([Self.maps: .precise]), now: Self.now)).isEmpty)
        let taken = core.locdSet(Self.maps, record: App(grant: .never, allowed: false), now: Self.now)
        #expect(Self.writes(taken).isEmpty)
        #expect(core.agreed.apps[Self.maps] == .never)
        // Back on from the store: While Using, precise; an app allowed keeps its While Using or Always.
        let on = core.storeRead([Self.maps: ["EXACT", "7"]], now: Self.now)
        #expect(Self.writes(on) == [.setAuthorization(app: Self.maps, setting: "whileUsing", precise: true)])
        _ = core.locdSet(Self.maps, record: App(grant: .precise, allowed: true), now: Self.now)
        let coarser = core.storeRead([Self.maps: ["STREET", "7"]], now: Self.now)
        #expect(Self.writes(coarser) == [.setAuthorization(app: Self.maps, setting: nil, precise: false)])
    }

    @Test("N9: what locd holds after a copy (an administrator's ceiling) is written back, once")
    func ceilingWrittenBack() {
        var (core, _) = Self.started([Self.maps: .approximate], [Self.maps: ["CITY", "1"]])
        _ = core.storeRead([Self.maps: ["EXACT", "1"]], now: Self.now)
        let held = core.locdSet(Self.maps, record: App(grant: .approximate, allowed: true), now: Self.now)
        #expect(Self.writes(held) == [.writeStore(app: Self.maps, level: "CITY", lastUsed: "1800000000")])
        #expect(Self.writes(core.storeRead([Self.maps: ["CITY", "1800000000"]], now: Self.now)).isEmpty)
    }

    @Test("N8: ids that are no app id, and the portal's own app, are never copied")
    func ids() {
        let (_, actions) = Self.started(
            ["xdg-desktop-portal": .precise, "bad id": .never],
            ["bad/id": ["NONE", "1"], "-x": ["NONE", "1"]]
        )
        #expect(Self.writes(actions).isEmpty)
    }
}

extension SettingsSyncCoreTests {
    @Test("N10: at login the side that moved since the last agreement wins; with none, a decision over none")
    func login() {
        var agreed = AgreedSettings()
        agreed.apps = [Self.maps: .precise, "com.ex.run": .precise]
        // locctl auth from a text console while the agent was away: locd moved, the store did not.
        let (_, console) = Self.started(
            [Self.maps: .never, "com.ex.run": .precise],
            [Self.maps: ["EXACT", "1"], "com.ex.run": ["NONE", "1"]],
            agreed: agreed
        )
        #expect(
            Self.writes(console) == [
                .writeStore(app: Self.maps, level: "NONE", lastUsed: "1"),
                .setAuthorization(app: "com.ex.run", setting: "never", precise: nil),
            ]
        )
        // Nothing agreed yet: a decision wins over none, on either side.
        let (_, fresh) = Self.started([Self.maps: .precise, "com.ex.run": .ask], ["com.ex.run": ["CITY", "1"]])
        #expect(
            Self.writes(fresh) == [
                .writeStore(app: Self.maps, level: "EXACT", lastUsed: "1800000000"),
                .setAuthorization(app: "com.ex.run", setting: "whileUsing", precise: false),
            ]
        )
    }

    @Test("N10: where both sides decided and nothing says which is newer, the stricter wins")
    func stricterWins() {
        let (_, actions) = Self.started(
            [Self.maps: .precise, "com.ex.run": .never],
            [Self.maps: ["NONE", "1"], "com.ex.run": ["EXACT", "1"]]
        )
        #expect(
            Self.writes(actions) == [
                .setAuthorization(app: Self.maps, setting: "never", precise: nil),
                .writeStore(app: "com.ex.run", level: "NONE", lastUsed: "1"),
            ]
        )
    }

    @Test("N10: what was agreed is kept across sessions, read back as written; a line it cannot read is skipped")
    func agreedFile() {
        var agreed = AgreedSettings()
        agreed.apps = [Self.maps: .approximate, "com.ex.run": .never]
        agreed.switchOn = false
        #expect(AgreedSettings(text: agreed.text) == agreed)
        #expect(
            AgreedSettings(text: "com.ex.maps precise\nbad/id never\nx\n@switch maybe\n").apps == [Self.maps: .precise]
        )
    }

    @Test("N11: a grant given in the store also answers locd's question about the portal, once; a decided one stays")
    func portal() {
        var (core, _) = Self.started(["xdg-desktop-portal": .ask], [:])
        let granted = core.storeRead(["org.example.Flatpak": ["EXACT", "1"]], now: Self.now)
        #expect(
            Self.writes(granted) == [
                .setAuthorization(app: "org.example.Flatpak", setting: "whileUsing", precise: true),
                .setAuthorization(app: "xdg-desktop-portal", setting: "whileUsing", precise: true),
            ]
        )
        var (decided, _) = Self.started(["xdg-desktop-portal": .never], [:])
        let kept = decided.storeRead(["org.example.Flatpak": ["EXACT", "1"]], now: Self.now)
        #expect(
            Self.writes(kept) == [.setAuthorization(app: "org.example.Flatpak", setting: "whileUsing", precise: true)]
        )
        // The portal's app that locd first lists just after the grant (its first Hello) takes it too, not later.
        var (first, _) = Self.started([:], [:])
        _ = first.storeRead(["org.example.Flatpak": ["CITY", "1"]], now: Self.now)
        _ = first.locdChanged()
        let listed = first.locdRead(Self.locd(["xdg-desktop-portal": .ask]), now: Self.now + 2)
        #expect(listed.contains(.setAuthorization(app: "xdg-desktop-portal", setting: "whileUsing", precise: false)))
        var (late, _) = Self.started([:], [:])
        _ = late.storeRead(["org.example.Flatpak": ["CITY", "1"]], now: Self.now)
        _ = late.locdChanged()
        #expect(Self.writes(late.locdRead(Self.locd(["xdg-desktop-portal": .ask]), now: Self.now + 11)).isEmpty)
        // A grant that came from locd is no answer given through the portal.
        var (fromLocd, _) = Self.started(["xdg-desktop-portal": .ask, Self.maps: .ask], [:])
        _ = fromLocd.locdChanged()
        _ = fromLocd.locdRead(Self.locd(["xdg-desktop-portal": .ask, Self.maps: .precise]), now: Self.now)
        #expect(Self.writes(fromLocd.storeRead([Self.maps: ["EXACT", "1"]], now: Self.now)).isEmpty)
    }

    @Test("N12: an unset switch takes locd's; a switch set off stays off at login; an administrator's is not copied")
    func gnomeSwitch() {
        var unset = Core(agreed: AgreedSettings())
        _ = unset.start()
        _ = unset.locdRead(Self.locd([:]), now: Self.now)
        #expect(unset.switchRead(.unset, now: Self.now).contains(.writeSwitch(true)))
        var off = Core(agreed: AgreedSettings())
        _ = off.start()
        _ = off.locdRead(Self.locd([:]), now: Self.now)
        #expect(off.switchRead(.off, now: Self.now).contains(.setServices(false)))
        var administrator = Core(agreed: AgreedSettings())
        _ = administrator.start()
        _ = administrator.locdRead(Self.locd([:], switchOn: nil), now: Self.now)
        let actions = administrator.switchRead(.off, now: Self.now)
        #expect(!actions.contains(.setServices(false)) && !actions.contains(.writeSwitch(true)))
        #expect(administrator.switchRead(.on, now: Self.now).isEmpty, "said once")
    }

    @Test("N9: an app using location has its LAST_USED written when it starts and each minute, its LEVEL kept")
    func lastUsed() {
        var (core, _) = Self.started([Self.maps: .approximate], [Self.maps: ["STREET", "1"]])
        _ = core.locdChanged()
        let started = core.locdRead(Self.locd([Self.maps: .approximate], using: [Self.maps]), now: Self.now)
        #expect(started == [.writeStore(app: Self.maps, level: "STREET", lastUsed: "1800000000")])
        #expect(core.lastUseDue(now: Self.now + 30).isEmpty)
        #expect(
            core.lastUseDue(now: Self.now + 60) == [
                .writeStore(app: Self.maps, level: "STREET", lastUsed: "1800000060")
            ]
        )
    }
}

extension SettingsSyncCoreTests {
    @Test("N14: GNOME's accuracy below exact makes precise apps approximate, and gives them back once it is exact")
    func accuracyLimit() {
        var (core, _) = Self.started([Self.maps: .precise, "com.ex.run": .approximate], [:])
        let capped = core.accuracyRead(capped: true, now: Self.now)
        #expect(Self.writes(capped) == [.setAuthorization(app: Self.maps, setting: nil, precise: false)])
        #expect(core.agreed.heldPrecise == [Self.maps])
        _ = core.locdSet(Self.maps, record: App(grant: .approximate, allowed: true), now: Self.now)
        // A precise grant from the store while the limit holds is copied approximate.
        let store = core.storeRead(["com.ex.walk": ["EXACT", "1"]], now: Self.now)
        #expect(Self.writes(store) == [.setAuthorization(app: "com.ex.walk", setting: "whileUsing", precise: false)])
        _ = core.locdSet("com.ex.walk", record: App(grant: .approximate, allowed: true), now: Self.now)
        let lifted = core.accuracyRead(capped: false, now: Self.now)
        #expect(
            Self.writes(lifted) == [
                .setAuthorization(app: Self.maps, setting: nil, precise: true),
                .setAuthorization(app: "com.ex.walk", setting: nil, precise: true),
            ]
        )
        #expect(core.agreed.heldPrecise.isEmpty)
        #expect(AgreedSettings(text: "@precise com.ex.maps\n").heldPrecise == [Self.maps])
    }
}
