import LocationTestSupport
import Testing
import Varlink

/// P12, P13 over the real socket: the re-confirmation of Always reaches an agent and its answers change the record.
@Suite("Always re-confirmed", .serialized)
struct ReconfirmTests {
    /// The test lifecycle with a re-confirmation after 0.5 s of background use under Always.
    static let settings = DaemonProcess.fastLifecycle + "\nalways-reconfirm = 0.5\n"

    @Test("P12, P13: background use under Always brings an alwaysReconfirm prompt; changeToWhileUsing answers it")
    func reconfirmOverTheWire() throws {
        let daemon = try DaemonProcess(settings: Self.settings)
        try daemon.start()
        try daemon.connect().call(
            "io.locd.Admin.SetAuthorization",
            ["appId": .string("com.ex.maps"), "setting": .string("always")]
        )
        let app = try daemon.app("com.ex.maps")
        try app.call("io.locd.App.CreateSession", ["authorization": .string("always")])
        try app.call("io.locd.App.SetAppState", ["state": .string("background")])

        // The agent's stream blocks until the prompt is raised, half a second of use later.
        let agent = try daemon.connect()
        let prompt = try #require(try agent.stream("io.locd.Admin.Prompts")["prompt"])
        #expect(prompt["kind"] == .string("alwaysReconfirm"))
        #expect(prompt["appId"] == .string("com.ex.maps"))
        #expect(prompt["usageDescription"] == .string("Tracks your trips"))
        #expect(prompt["options"] == .array([.string("keepAlways"), .string("changeToWhileUsing")]))
        #expect(try app.call("io.locd.App.GetAuthorization")["authorization"]?["status"] == .string("authorizedAlways"))

        let refused = errorName {
            try daemon.connect().call(
                "io.locd.Admin.AnswerPrompt",
                ["id": prompt["id"]!, "answer": .string("changeToAlways")]
            )
        }
        #expect(refused == "io.locd.Admin.InvalidAnswer")
        try daemon.connect().call(
            "io.locd.Admin.AnswerPrompt",
            ["id": prompt["id"]!, "answer": .string("changeToWhileUsing")]
        )
        #expect(try agent.next()["withdrawn"] == prompt["id"])
        let authorization = try app.call("io.locd.App.GetAuthorization")["authorization"]
        #expect(authorization?["status"] == .string("authorizedWhenInUse"))
        #expect(authorization?["settingsLabel"] == .string("whileUsing"))
    }
}
