import Foundation
import LocationTestSupport
import Testing
import Varlink

/// Clients that misbehave on purpose: none of them may slow, starve or leak the daemon (PROTOCOL limits).
@Suite("Hostile clients", .serialized)
struct HostileClientTests {
    @Test("PROTOCOL: a client sending a call one byte at a time holds up no other client")
    func trickle() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let slow = try daemon.connect()
        let frame = Array(VarlinkCall(method: "org.varlink.service.GetInfo", parameters: [:]).serialized.utf8) + [0]
        let other = try daemon.app("com.ex.maps")
        // Between every two bytes of the slow call, another client completes a full round trip.
        for byte in frame.dropLast() {
            try slow.sendRaw([byte])
            try other.call("io.locd.App.GetAuthorization")
        }
        try slow.sendRaw([frame.last!])
        #expect(try slow.receive().parameters["vendor"] == .string("locd"))
        #expect(daemon.stop() == 0)
    }

    @Test("PROTOCOL: half-open and silent connections are freed or held without harm to others")
    func halfOpen() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.connect()
        // Silent: connected, never a byte. It counts as a client and harms nobody.
        let silent = try daemon.connect()
        // Half a frame, then the sending half closed: the daemon sees end-of-file mid-frame and lets go.
        let halfFrame = try daemon.connect()
        try halfFrame.sendRaw(Array(#"{"method":"org.varlink.service.GetIn"#.utf8))
        halfFrame.finishSending()
        #expect(halfFrame.isClosedByPeer(within: 5))
        // A whole call, then the sending half closed: the reply still arrives (or the close; never a hang).
        let halfClosed = try daemon.connect()
        try halfClosed.send(VarlinkCall(method: "org.varlink.service.GetInfo", parameters: [:]))
        halfClosed.finishSending()
        if let reply = try? halfClosed.receive() { #expect(reply.parameters["vendor"] == .string("locd")) }
        #expect(halfClosed.isClosedByPeer(within: 5))
        // The silent connection harms nobody.
        #expect(try admin.call("org.varlink.service.GetInfo")["vendor"] == .string("locd"))
        let app = try daemon.app("com.ex.maps")
        #expect(try app.call("io.locd.App.ListSessions")["sessions"]?.arrayValue == [])
        _ = silent
        #expect(daemon.stop() == 0)
    }

    @Test("PROTOCOL: 10,000 connect/disconnect cycles leak no descriptor and no memory")
    func rapidCycles() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.connect()
        // Warm up, so that lazily grown tables and allocator pools are counted in the baseline.
        try cycle(daemon, count: 500)
        #expect(try eventually { try clients(admin) == 0 })
        let descriptorsBefore = try openDescriptors(of: daemon)
        let residentBefore = try residentKiB(of: daemon.pid)

        try cycle(daemon, count: 10_000)

        #expect(try eventually { try clients(admin) == 0 })
        // Name-service lookups and sd_notify open a descriptor now and then; a leak would be thousands.
        #expect(try eventually { try openDescriptors(of: daemon) <= descriptorsBefore + 4 })
        let grown = try residentKiB(of: daemon.pid) - residentBefore
        // A leak of even 1 KiB per cycle would be 10 MiB; allocator noise stays well under 4 MiB.
        #expect(grown < 4096, "RSS grew by \(grown) KiB over 10,000 cycles")
        #expect(daemon.stop() == 0)
    }

    /// Connections that do a little and go: silent, mid-frame, half-closed, after Hello, after Goodbye.
    private func cycle(_ daemon: DaemonProcess, count: Int) throws {
        for index in 0..<count {
            let client = try daemon.connect()
            switch index % 5 {
            case 0: break
            case 1: try client.sendRaw(Array(#"{"method":"io.locd.App.He"#.utf8))
            case 2:
                try client.sendRaw(Array(#"{"method":"io.locd.App.He"#.utf8))
                client.finishSending()
            case 3: try client.call("io.locd.App.Hello", ["appId": .string("com.ex.maps")])
            default:
                try client.call("io.locd.App.Hello", ["appId": .string("com.ex.maps")])
                try client.call("io.locd.App.Goodbye")
            }
        }
    }

    /// Connections bound to an app by `Hello`.
    private func clients(_ admin: VarlinkClient) throws -> Int {
        Int(try admin.call("io.locd.Admin.Status")["status"]?["clients"]?.intValue ?? -1)
    }

    /// The daemon's open file descriptors.
    private func openDescriptors(of daemon: DaemonProcess) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd").count
    }

    private func residentKiB(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
