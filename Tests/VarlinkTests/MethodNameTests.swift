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

    @Test("PROTOCOL: a call whose method is changed splits the new name")
    func renamedCallSplitsAgain() {
        var call = VarlinkCall(method: "io.locd.App.CreateSession")
        call.method = "io.locd.Admin.Status"
        #expect(call.interface == "io.locd.Admin")
        #expect(call.memberName == "Status")
        #expect(call == VarlinkCall(method: "io.locd.Admin.Status"))
    }

    @Test("PROTOCOL: of a key given twice in a call, the first counts, as in the object's subscript")
    func repeatedKeysFirstCounts() throws {
        let text = #"{"method":"io.locd.App.Status","more":true,"method":"x.Y","parameters":{"a":1},"more":false}"#
        let call = try VarlinkCall.decode(Array(text.utf8)).get()
        #expect(call.method == "io.locd.App.Status")
        #expect(call.interface == "io.locd.App")
        #expect(call.more)
        #expect(call.parameters["a"] == .int(1))
        // The first `oneway` is checked, not a later good one.
        let refused = VarlinkCall.decode(Array(#"{"method":"a.B","oneway":3,"oneway":true}"#.utf8))
        #expect(throws: VarlinkError.self) { try refused.get() }
        if case .failure(let error) = refused { #expect(error.parameters["parameter"] == .string("oneway")) }
    }
}
