import Foundation
import LocationCore
import LocationTestSupport
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import LocationProviders

/// The gpsd client against a stand-in gpsd over a real socket: WATCH, reports, disconnects, reconnection.
@Suite("gpsd provider")
struct GPSDProviderTests {
    /// What the provider reported, from its loop's thread.
    final class Updates: Sendable {
        private let list = Mutex<[ProviderUpdate]>([])
        func append(_ update: ProviderUpdate) { list.withLock { $0.append(update) } }
        var all: [ProviderUpdate] { list.withLock { $0 } }
        var fixes: [Fix] { all.compactMap { if case .fix(let fix) = $0 { fix } else { nil } } }
        var losses: [String] { all.compactMap { if case .fixLost(let reason) = $0 { reason } else { nil } } }
        var states: [(ProviderState, String?)] {
            all.compactMap { if case .state(let state, let detail) = $0 { (state, detail) } else { nil } }
        }
        var warnings: [String] { all.compactMap { if case .warning(let text) = $0 { text } else { nil } } }
        var last: ProviderUpdate? { all.last }
    }

    /// A provider on its own event loop, and the calls that must run there.
    final class Harness {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let provider: NIOLoopBound<GPSDProvider>
        let updates = Updates()

        init(
            _ endpoint: GPSDEndpoint,
            backoff: ReconnectBackoff = ReconnectBackoff(initial: 0.02, maximum: 0.08),
            staleAfter: Double = 30
        ) throws {
            let loop = group.next()
            provider = try loop.submit {
                NIOLoopBound(
                    GPSDProvider(
                        endpoint: endpoint,
                        eventLoop: loop,
                        backoff: backoff,
                        staleAfter: staleAfter,
                        unixTime: { 7 }
                    ),
                    eventLoop: loop
                )
            }.wait()
        }

        deinit {
            try? group.syncShutdownGracefully()
        }

        func start() throws {
            let (provider, updates) = (provider, updates)
            try group.next().submit { provider.value.start { updates.append($0) } }.wait()
        }

        func stop() throws {
            let provider = provider
            try group.next().submit { provider.value.stop() }.wait()
        }

        var state: ProviderState {
            let provider = provider
            return (try? group.next().submit { provider.value.state }.wait()) ?? .stopped
        }
    }

    static func socketPath() -> String {
        "/tmp/gpsd-test-\(UUID().uuidString.prefix(8)).sock"
    }

    static let tpv3 =
        #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2026-11-22T12:00:00.000Z","ept":0.005,"lat":35.681236667,"#
        + #""lon":139.767125000,"altHAE":79.4000,"altMSL":40.0000,"alt":40.0000,"epv":48.300,"eph":17.100}"# + "\r\n"
    static let tpv1 =
        #"{"class":"TPV","device":"/dev/pts/1","mode":1,"time":"2026-11-22T12:00:08.000Z","ept":0.005}"# + "\r\n"

    @Test("U3: the client sends WATCH, turns a TPV split across writes into a fix, and mode 1 into a loss of fix")
    func watchAndReports() throws {
        let path = Self.socketPath()
        let gpsd = try FakeGPSD(path: path)
        let harness = try Harness(.unix(path: path))
        try harness.start()
        try #require(eventually { gpsd.received(0).contains("?WATCH") }, "timed out waiting for the WATCH command")
        #expect(gpsd.received(0) == #"?WATCH={"enable":true,"json":true};"# + "\n")
        try #require(eventually { harness.state == .running }, "timed out waiting for running")

        let bytes = Array(Self.tpv3.utf8)
        try gpsd.send(String(decoding: bytes[..<50], as: UTF8.self), to: 0)
        try gpsd.send(String(decoding: bytes[50...], as: UTF8.self), to: 0)
        try #require(eventually { !harness.updates.fixes.isEmpty }, "timed out waiting for a fix")
        let fix = harness.updates.fixes[0]
        #expect(
            fix
                == Fix(
                    latitude: 35.681236667,
                    longitude: 139.767125,
                    altitude: 40,
                    horizontalAccuracy: 17.1,
                    verticalAccuracy: 48.3,
                    timestamp: 1_795_348_800
                )
        )

        try gpsd.send(Self.tpv1, to: 0)
        try #require(eventually { !harness.updates.losses.isEmpty }, "timed out waiting for a loss of fix")
        #expect(harness.updates.losses == ["gpsd reports mode 1: no fix"])
        #expect(harness.updates.states.map(\.0) == [.connecting, .running])
        #expect(harness.updates.states.last?.1 == "connected to gpsd 3.22 at unix:\(path)")

        try gpsd.send("{\"class\":\"ERROR\",\"message\":\"Unrecognized request\"}\r\nnot json\r\n", to: 0)
        try #require(eventually { harness.updates.warnings.count == 2 }, "timed out waiting for two warnings")
        #expect(harness.updates.warnings.contains { $0.hasSuffix("answered with an error: Unrecognized request") })
        #expect(harness.updates.warnings.contains { $0.hasSuffix("sent 1 unreadable lines; skipped") })
        try harness.stop()
    }

    @Test("D9: a disconnect loses the fix; the client reconnects after a pause and reads again")
    func disconnectAndReconnect() throws {
        let path = Self.socketPath()
        let gpsd = try FakeGPSD(path: path)
        let harness = try Harness(.unix(path: path))
        try harness.start()
        try #require(eventually { gpsd.received(0).contains("?WATCH") }, "timed out waiting for the WATCH command")
        try gpsd.send(Self.tpv3, to: 0)
        try #require(eventually { harness.updates.fixes.count == 1 }, "timed out waiting for a fix")

        try gpsd.disconnect(0)
        try #require(eventually { harness.updates.losses.count == 1 }, "timed out waiting for a loss of fix")
        #expect(harness.updates.losses == ["gpsd at unix:\(path) closed the connection"])
        #expect(harness.updates.states.contains { $0.0 == .retrying && $0.1?.hasSuffix("retrying in 0.02 s") == true })
        try #require(eventually { gpsd.received(1).contains("?WATCH") }, "timed out waiting for a second connection")
        try gpsd.send(Self.tpv3, to: 1)
        try #require(eventually { harness.updates.fixes.count == 2 }, "timed out waiting for the fix again")
        #expect(harness.state == .running)
        try harness.stop()
    }

    @Test(
        "U3: while gpsd is unreachable the client retries, pauses doubling to the maximum, and connects once it is up"
    )
    func retriesWithBackoff() throws {
        let path = Self.socketPath()
        let harness = try Harness(.unix(path: path), backoff: ReconnectBackoff(initial: 0.01, maximum: 0.04))
        try harness.start()
        func retries() -> [String] {
            harness.updates.states.filter { $0.0 == .retrying }.compactMap { $0.1?.components(separatedBy: "; ").last }
        }
        try #require(eventually { retries().count >= 4 }, "timed out waiting for four failed attempts")
        #expect(
            Array(retries().prefix(4)) == [
                "retrying in 0.01 s", "retrying in 0.02 s", "retrying in 0.04 s", "retrying in 0.04 s",
            ]
        )
        #expect(harness.updates.losses.isEmpty, "no fix was had, so none is lost")
        #expect(
            harness.updates.states.first { $0.0 == .retrying }?.1?.hasPrefix("cannot connect to gpsd at unix:\(path)")
                == true
        )

        let gpsd = try FakeGPSD(path: path)
        try #require(eventually { gpsd.received(0).contains("?WATCH") }, "timed out waiting for a connection")
        try #require(eventually { harness.state == .running }, "timed out waiting for running")
        // gpsd said hello, so the next failure waits the first pause again.
        let before = retries().count
        try gpsd.disconnect(0)
        try #require(eventually { retries().count > before }, "timed out waiting for another retry")
        #expect(retries()[before] == "retrying in 0.01 s")
        try harness.stop()
    }

    @Test("U3: stopping closes the connection and reports nothing more")
    func stopCloses() throws {
        let path = Self.socketPath()
        let gpsd = try FakeGPSD(path: path)
        let harness = try Harness(.unix(path: path))
        try harness.start()
        try #require(eventually { gpsd.received(0).contains("?WATCH") }, "timed out waiting for the WATCH command")
        try gpsd.send(Self.tpv3, to: 0)
        try #require(eventually { harness.updates.fixes.count == 1 }, "timed out waiting for a fix")
        try harness.stop()
        let count = harness.updates.all.count
        #expect(harness.state == .stopped)
        try #require(eventually { gpsd.closedConnections == 1 }, "timed out waiting for the connection closed")
        #expect(harness.updates.all.count == count)
        #expect(gpsd.accepted == 1, "no reconnection after a stop")
    }

    @Test("U3: the client speaks TCP to host:port as well")
    func tcp() throws {
        let gpsd = try FakeGPSD()
        let harness = try Harness(.tcp(host: "127.0.0.1", port: gpsd.port))
        try harness.start()
        try #require(eventually { gpsd.received(0).contains("?WATCH") }, "timed out waiting for the WATCH command")
        try gpsd.send(Self.tpv3, to: 0)
        try #require(eventually { harness.updates.fixes.count == 1 }, "timed out waiting for a fix")
        #expect(harness.updates.states.last?.1 == "connected to gpsd 3.22 at 127.0.0.1:\(gpsd.port)")
        try harness.stop()
    }

    @Test("D9: a gpsd that goes quiet while there is a fix loses it after the silence limit")
    func silence() throws {
        let path = Self.socketPath()
        let gpsd = try FakeGPSD(path: path)
        let harness = try Harness(.unix(path: path), staleAfter: 0.1)
        try harness.start()
        try #require(eventually { gpsd.received(0).contains("?WATCH") }, "timed out waiting for the WATCH command")
        try gpsd.send(Self.tpv3, to: 0)
        try #require(eventually { harness.updates.fixes.count == 1 }, "timed out waiting for a fix")
        try #require(eventually { harness.updates.losses.count == 1 }, "timed out waiting for the loss of fix")
        #expect(harness.updates.losses == ["no report from gpsd at unix:\(path) for 0.1 s"])
        #expect(gpsd.accepted == 1, "silence is not a disconnect")
        try harness.stop()
    }
}
