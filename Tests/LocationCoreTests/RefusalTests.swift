import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS I6 as the core decides it: the calls it refuses that the log tells of come out as ``Action/refused(_:_:)``
/// with what the log line says, beside the call's error.
@Suite("Refusals")
struct RefusalTests {
    private static let nobody: UInt32 = 65534
    private static let alice: UInt32 = 1000

    /// The refusals of `call` in the last event.
    private func refusals(_ h: Harness, _ call: CallID) -> [Refusal] {
        h.last.compactMap { if case .refused(call, let refusal) = $0 { refusal } else { nil } }
    }

    @Test("H4, I6: a call naming another user's apps is refused, and the refusal with its reason goes to the log")
    func deniedScopeIsTold() {
        var h = Harness()
        let alice = h.person(Self.alice)
        let call = h.call(alice, .listApps(user: Self.nobody))
        guard case .permissionDenied(let reason)? = h.error(of: call) else {
            Issue.record("ListApps of another user was not refused: \(h.last)")
            return
        }
        #expect(refusals(h, call) == [.denied(reason: reason, uid: Self.alice)])
    }

    @Test("H4, I6: an administrators' method refused to an ordinary user is told, with the caller's uid")
    func administratorsOnlyIsTold() {
        var h = Harness()
        let alice = h.person(Self.alice)
        let call = h.call(alice, .forgetApps(owner: .uid(Self.nobody)))
        guard case .permissionDenied(let reason)? = h.error(of: call) else {
            Issue.record("ForgetApps was not refused: \(h.last)")
            return
        }
        #expect(refusals(h, call) == [.denied(reason: reason, uid: Self.alice)])
    }

    @Test("I6: a call answered, or refused for another reason, tells the log nothing")
    func othersAreNotTold() {
        var h = Harness()
        let alice = h.person(Self.alice)
        let listed = h.call(alice, .listApps(user: nil))
        #expect(h.reply(to: listed) != nil)
        #expect(refusals(h, listed).isEmpty)
        let app = h.launch("com.ex.maps")
        let unknown = h.call(app, .invalidateSession("1-1"))
        #expect(h.error(of: unknown) != nil)
        #expect(refusals(h, unknown).isEmpty)
    }

    @Test("F20, I6: a Hello refused at max-apps-per-uid tells the app, its uid, the bound and a broker's process")
    func appLimitIsTold() {
        var h = Harness(configuration: CoreConfiguration(maxAppsPerUID: 1, allowUnknownApps: true))
        let first = h.connect(uid: Self.nobody)
        let made = h.call(first, .hello(appID: "org.invented.a", state: nil))
        #expect(h.error(of: made) == nil)
        let own = h.connect(uid: Self.nobody)
        let refused = h.call(own, .hello(appID: "org.invented.b", state: nil))
        #expect(h.error(of: refused) == .limitExceeded(limit: "max-apps-per-uid", maximum: 1))
        #expect(
            refusals(h, refused) == [.appLimit(appID: "org.invented.b", uid: Self.nobody, process: nil, maximum: 1)]
        )
        let broker = h.connect(pid: 50, uid: 0)
        let brokered = h.call(
            broker,
            .brokeredHello(
                appID: "org.invented.c",
                state: nil,
                process: 4000,
                description: "Invented",
                uid: Self.nobody
            )
        )
        #expect(h.error(of: brokered) == .limitExceeded(limit: "max-apps-per-uid", maximum: 1))
        #expect(
            refusals(h, brokered) == [.appLimit(appID: "org.invented.c", uid: Self.nobody, process: 4000, maximum: 1)]
        )
    }
}
