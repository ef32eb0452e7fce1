import Foundation
import Testing
import Varlink

/// `locctl` against a real daemon.
@Suite("locctl", .serialized)
struct LocctlTests {
    private func locctl(_ arguments: [String], socket: String) throws -> (status: Int32, output: String) {
        let process = Process()
        let bundle = URL(fileURLWithPath: DaemonProcess.binary).deletingLastPathComponent()
        process.executableURL = bundle.appendingPathComponent("locctl")
        process.arguments = arguments
        process.environment = ["LOCD_SOCKET": socket]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("S12: locctl status lists the apps using location now and in the background")
    func status() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.connect()
        for app in ["com.ex.maps", "com.ex.run"] {
            try admin.call("io.locd.Admin.SetAuthorization", ["appId": .string(app), "setting": .string("whileUsing")])
        }
        let maps = try daemon.app("com.ex.maps")
        try maps.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        let run = try daemon.app("com.ex.run")
        try run.call("io.locd.App.BeginBackgroundActivity")
        try run.call("io.locd.App.SetAppState", ["state": .string("background")])

        let human = try locctl(["status"], socket: daemon.socketPath)
        #expect(human.status == 0)
        #expect(human.output.contains("   Location services: on\n"))
        #expect(human.output.contains("            Sessions: 2 (0 lingering)\n"))
        #expect(human.output.contains("      Using location: com.ex.maps, com.ex.run\n"))
        #expect(human.output.contains("   In the background: com.ex.run\n"))

        let json = try locctl(["status", "--json"], socket: daemon.socketPath)
        let status = try #require(JSONValue.parse(Array(json.output.utf8)))
        #expect(status["appsUsingLocationInBackground"] == .array([.string("com.ex.run")]))
        #expect(status["sessions"] == .int(2))
        #expect(status["storeHealthy"] == .bool(true))
    }

    @Test("locctl: a daemon that is not there is a clear failure with exit code 1")
    func noDaemon() throws {
        let result = try locctl(["status"], socket: "/nonexistent/io.locd")
        #expect(result.status == 1)
        #expect(result.output.contains("cannot connect to /nonexistent/io.locd"))
    }
}
