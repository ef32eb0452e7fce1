import LocationTestSupport
import LocationWireErrors
import Testing

@testable import LocationCore

/// SEMANTICS I8 and I11 in the core: what a broker's Hello binds, once the shell has checked it.
@Suite("Brokered Hello")
struct BrokeredHelloTests {
    private func brokered(_ appID: String, process: Int32, description: String? = nil) -> Call {
        .brokeredHello(appID: appID, state: nil, process: process, description: description, uid: nil)
    }

    @Test("I11: with ask, an app with no manifest asks with the broker's description, when-in-use only")
    func askWithDescription() {
        #expect(CoreConfiguration().unknownBrokeredApps == .ask)
        var h = Harness()
        let broker = h.connect(pid: 50)
        let hello = h.call(broker, brokered("org.gnome.Maps", process: 4000, description: "Shows where you are"))
        #expect(h.error(of: hello) == nil)
        #expect(h.create(broker, .whenInUse) != nil)
        #expect(h.prompts("org.gnome.Maps").map(\.usageDescription) == ["Shows where you are"])
        let always = h.call(broker, .createSession(.always, purposeKey: nil))
        #expect(h.error(of: always)?.wireName == "io.locd.App.UsageDescriptionMissing")
        // Without a description the prompt still comes, with the placeholder.
        let other = h.connect(pid: 50)
        h.call(other, brokered("org.example.Quiet", process: 4001))
        #expect(h.create(other, .whenInUse) != nil)
        #expect(h.prompts("org.example.Quiet").map(\.usageDescription) == ["(no description)"])
    }

    @Test("N6: a prompt says brokered while a broker speaks for a process of its app, and not for the app's own")
    func promptSaysBrokered() {
        var h = Harness()
        let broker = h.connect(pid: 50)
        h.call(broker, brokered("com.ex.maps", process: 4000))
        #expect(h.create(broker, .whenInUse) != nil)
        #expect(h.prompts("com.ex.maps").map(\.brokered) == [true])
        let own = h.launch("com.ex.run", state: .foreground)
        #expect(h.create(own, .whenInUse) != nil)
        #expect(h.prompts("com.ex.run").map(\.brokered) == [false])
    }

    @Test("I11: with deny, an app with no manifest is AppUnknown, with a message naming the key to change")
    func deny() {
        var h = Harness(configuration: CoreConfiguration(unknownBrokeredApps: .deny))
        let broker = h.connect(pid: 50)
        let hello = h.call(broker, brokered("org.gnome.Maps", process: 4000))
        #expect(h.error(of: hello) == .appUnknown(appID: "org.gnome.Maps", brokered: true))
        #expect(h.error(of: hello)?.message.contains("unknown-brokered-apps = \"ask\"") == true)
        // A manifest's app is not affected: the broker speaks for it as for any app.
        let maps = h.call(broker, brokered("com.ex.maps", process: 4001))
        #expect(h.error(of: maps) == nil)
    }

    @Test("I11: a manifest's descriptions win over a broker's, and its stand-in admits no process that connects itself")
    func manifestWinsAndStandInIsBrokersOnly() {
        var h = Harness()
        let broker = h.connect(pid: 50)
        h.call(broker, brokered("com.ex.maps", process: 4000, description: "Not the manifest's words"))
        #expect(h.create(broker, .whenInUse) != nil)
        #expect(h.prompts("com.ex.maps").map(\.usageDescription) == ["Shows you on the map"])
        let other = h.connect(pid: 50)
        h.call(other, brokered("org.gnome.Maps", process: 4001, description: "Maps"))
        let impostor = h.connect(pid: 666)
        let direct = h.call(impostor, .hello(appID: "org.gnome.Maps", state: nil))
        #expect(h.error(of: direct) == .appUnknown(appID: "org.gnome.Maps"))
    }

    @Test("I11: a reload keeps the stand-in while ask, and drops it with deny")
    func reload() {
        var h = Harness()
        let broker = h.connect(pid: 50)
        h.call(broker, brokered("org.gnome.Maps", process: 4000, description: "Maps"))
        h.send(.reload(manifests: Harness.defaultManifests, configuration: CoreConfiguration()))
        #expect(h.core.apps["org.gnome.Maps"]?.manifest?.whenInUseUsageDescription == "Maps")
        h.send(
            .reload(manifests: Harness.defaultManifests, configuration: CoreConfiguration(unknownBrokeredApps: .deny))
        )
        #expect(h.core.apps["org.gnome.Maps"]?.manifest == nil)
        let again = h.connect(pid: 50)
        let hello = h.call(again, brokered("org.gnome.Maps", process: 4000))
        #expect(h.error(of: hello) == .appUnknown(appID: "org.gnome.Maps", brokered: true))
    }

    @Test("I8: Goodbye on a broker's connection ends the sessions of the process it named, not the broker's others")
    func goodbyeSpeaksForTheNamedProcess() {
        var h = Harness()
        // One broker process, two connections for two processes of the same app.
        let first = h.connect(pid: 50)
        h.call(first, brokered("com.ex.maps", process: 4000))
        let second = h.connect(pid: 50)
        h.call(second, brokered("com.ex.maps", process: 4001))
        let kept = h.create(second, .noAuthorization)
        let ended = h.create(first, .noAuthorization)
        h.call(first, .goodbye)
        let keptState = kept.flatMap { h.state($0) }
        #expect(keptState != nil && keptState != .invalidated && keptState != .lingering)
        let endedState = ended.flatMap { h.state($0) }
        #expect(ended != nil && (endedState == nil || endedState == .invalidated))
    }
}
