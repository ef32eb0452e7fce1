import LocationConfiguration
import LocationCore
import LocationDaemon
import LocationProviders
import NIOCore
import NIOEmbedded
import Varlink

/// The inputs locd takes from outside, each as a fuzz target: one input in, no crash out.
///
/// `locd-fuzz` runs them under libFuzzer (`Fuzz/run.sh`); `FuzzRegressionTests` runs every corpus and
/// regression file through them in the ordinary test suite, so a crash once found stays fixed.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// Bytes off a socket into the NUL framing and the call parser (PROTOCOL "Limits and bad input").
    case varlinkFrame = "varlink-frame"
    /// NUL-separated calls decoded and handed to the core, with a fake clock that jumps between them.
    case callDispatch = "call-dispatch"
    /// An app manifest file (SEMANTICS §2, M1).
    case manifest
    /// A `locd.toml` (SEMANTICS §11).
    case config
    /// NMEA 0183 lines, as the nmea provider reads them.
    case nmea
    /// gpsd's JSON lines, as the gpsd provider reads them, in two reads split by the first byte.
    case gpsd

    /// Runs one input.
    package func run(_ input: [UInt8]) {
        switch self {
        case .varlinkFrame: Self.frames(input)
        case .callDispatch: Self.dispatch(input)
        case .manifest: _ = ManifestParser.parse(bytes: input, file: "fuzz.toml")
        case .config: Self.config(input)
        case .nmea:
            var parser = NMEASentenceParser()
            _ = parser.sentences(in: input)
        case .gpsd:
            var parser = GPSDMessageParser()
            let split = Int(input.first ?? 0) % (input.count + 1)
            _ = parser.feed(input[..<split])
            _ = parser.feed(input[split...])
        }
    }

    private static func frames(_ input: [UInt8]) {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VarlinkFrameDecoder(maximumFrameLength: 4096)))
        var buffer = channel.allocator.buffer(capacity: input.count)
        buffer.writeBytes(input)
        _ = try? channel.writeInbound(buffer)
        while let frame = try? channel.readInbound(as: ByteBuffer.self) {
            // A decoded call is written back out, as the client library does.
            if case .success(let call) = VarlinkCall.decode(frame.readableBytesView) { _ = call.serialized }
        }
        _ = try? channel.finish()
    }

    private static func config(_ input: [UInt8]) {
        let text = String(decoding: input, as: UTF8.self)
        _ = try? DaemonConfiguration.parse(text: text, file: "fuzz.toml")
    }

    /// Two apps, one connection bound to the first; each NUL-separated call is decoded and handled, then the
    /// clock moves by the call's first byte in tenths of a second and every deadline due is re-checked.
    private static func dispatch(_ input: [UInt8]) {
        var core = LocationCore(
            configuration: CoreConfiguration(backgroundGrace: .seconds(1), relaunchWindow: .seconds(2)),
            manifests: [
                Manifest(
                    appID: "com.ex.maps",
                    whenInUseUsageDescription: "Shows you on the map",
                    alwaysAndWhenInUseUsageDescription: "Tracks your trips",
                    temporaryUsageDescriptions: ["Navigation": "Precise"]
                ),
                Manifest(appID: "com.ex.bare"),
            ],
            epoch: 1
        )
        var now = Instant.seconds(1)
        let client = ClientID(1)
        _ = core.handle(.connected(client, pid: 1, uid: nil), at: now)
        _ = core.handle(
            .call(CallID(client: client, serial: 0), .hello(appID: "com.ex.maps", state: .foreground)),
            at: now
        )
        var serial: UInt64 = 1
        for frame in input.split(separator: 0, omittingEmptySubsequences: true) {
            if case .success(let call) = VarlinkCall.decode(frame),
                case .success(let decoded) = CallDecoder.decode(call)
            {
                _ = core.handle(.call(CallID(client: client, serial: serial), decoded), at: now)
                serial += 1
            }
            now = Instant(nanoseconds: now.nanoseconds + Int64(frame.first ?? 0) * 100_000_000)
            _ = core.handle(.deadlineReached, at: now)
        }
        _ = core.handle(.disconnected(client), at: now)
        _ = core.handle(.deadlineReached, at: Instant(nanoseconds: now.nanoseconds + 1_000_000_000_000))
    }
}
