import Testing
import Varlink

/// How a call's method name splits into interface and member (PROTOCOL: `interface.Method`).
@Suite struct MethodNameTests {
    @Test(
        "PROTOCOL: a method name splits at its last dot into interface and member",
        arguments: [
            ("io.locd.Session.CreateSession", "io.locd.Session", "CreateSession"),
            ("org.varlink.service.GetInfo", "org.varlink.service", "GetInfo"),
            ("NoInterface", "", "NoInterface"),
            ("io.locd.Session.", "io.locd.Session", ""),
            (".Leading", "", "Leading"),
            ("ünï.cödé.Mëthod", "ünï.cödé", "Mëthod"),
            // A dot followed by a combining mark is still a dot: names are split by bytes, not graphemes.
            ("io.locd.\u{301}X", "io.locd", "\u{301}X"),
        ]
    )
    func splitsAtLastDot(method: String, interface: String, member: String) {
        let call = VarlinkCall(method: method)
        #expect(call.interface == interface)
        #expect(call.memberName == member)
    }
}
