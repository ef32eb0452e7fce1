import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS R12 as the core tells it: which app each connection speaks for, so that the shell holds what goes to
/// that connection while a decision of the app is not stored.
@Suite("The app of a connection")
struct ConnectionAppTests {
    private static let alice: UInt32 = 1000

    /// What the last event said of `client`'s app, in order.
    private func told(_ h: Harness, _ client: ClientID) -> [AppKey?] {
        h.last.compactMap { if case .speaksFor(client, let app) = $0 { .some(app) } else { nil } }
    }

    @Test("R12, H1: Hello tells the user's app the connection speaks for, once; Goodbye tells it speaks for none")
    func helloAndGoodbye() {
        var h = Harness()
        let client = h.person(Self.alice)
        h.call(client, .hello(appID: "com.ex.maps", state: nil))
        #expect(told(h, client) == [AppKey("com.ex.maps", user: Self.alice)])
        h.call(client, .hello(appID: "com.ex.maps", state: nil))
        #expect(told(h, client).isEmpty, "a repeated Hello changes nothing")
        h.call(client, .goodbye)
        #expect(told(h, client) == [nil])
    }

    @Test("R12, F20: a connection whose app is forgotten is told to speak for none")
    func forgottenApp() {
        var h = Harness(configuration: CoreConfiguration(allowUnknownApps: true))
        let client = h.person(Self.alice)
        h.call(client, .hello(appID: "org.invented.app", state: nil))
        let admin = h.connect(uid: 0)
        h.call(admin, .forgetApps(owner: .uid(Self.alice)))
        #expect(told(h, client) == [nil])
    }

    @Test("R12: a refused Hello binds the connection to nothing and tells nothing")
    func refusedHello() {
        var h = Harness()
        let client = h.person(Self.alice)
        let call = h.call(client, .hello(appID: "org.unknown.app", state: nil))
        #expect(h.error(of: call) != nil)
        #expect(told(h, client).isEmpty)
    }
}
