import LocationTestSupport
import Testing

@testable import LocationCore

@Suite("Smoke")
struct SmokeTests {
    @Test("S6: a foreground whenInUse session raises a prompt; P1: allowWhileUsing authorizes")
    func promptFlow() {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let diag = h.connect()
        let id = h.create(app, .whenInUse)!
        h.call(app, .sessionDiagnostics(id.description))
        #expect(h.mask(id) == [.authorizationRequestInProgress])
        #expect(h.prompts("com.ex.maps").count == 1)
        h.answer("com.ex.maps", .allowWhileUsing)
        #expect(h.status("com.ex.maps") == .authorizedWhenInUse)
        #expect(h.mask(id) == [])
        #expect(h.state(id) == .active)
        _ = diag
    }
}
