// swift-tools-version:6.1
import PackageDescription

/// A product that the daemon, its tools or its tests use and LocationClient does not. SwiftPM resolves a package only
/// if some target needs it unconditionally or under an enabled trait, so an app that depends on locd with
/// `traits: []` resolves and builds SwiftNIO and nothing else (docs/USAGE.md). Every product but SwiftNIO's is named
/// through this; `DocumentedProgramTests` builds such an app and checks what it resolved.
func daemonOnly(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["Daemon"]))
}

let package = Package(
    name: "locd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "locd", targets: ["locd"]),
        .executable(name: "locctl", targets: ["locctl"]),
        .executable(name: "locd-core-bench", targets: ["LocationCoreBenchmark"]),
        .executable(name: "locd-example", targets: ["locd-example"]),
        .library(name: "LocationClient", targets: ["LocationClient"]),
        .executable(name: "locd-bench", targets: ["LocationDaemonBenchmark"]),
        .executable(name: "locd-geoclue", targets: ["locd-geoclue"]),
        .executable(name: "locd-bench-trivial", targets: ["locd-bench-trivial"]),
        .executable(name: "locd-network", targets: ["locd-network"]),
        .executable(name: "locd-agent", targets: ["locd-agent"]),
        .executable(name: "locd-multicall", targets: ["locd-multicall"]),
        .executable(name: "locd-explore", targets: ["locd-explore"]),
    ],
    // Daemon, on by default, is all of locd but LocationClient; an app turns it off (`traits: []`), and needs only
    // SwiftNIO of the dependencies below.
    traits: [
        .trait(name: "Daemon", description: "The daemon, its tools, benchmarks and tests: all but LocationClient"),
        .default(enabledTraits: ["Daemon"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // async-http-client's own TLS: named for TLSConfiguration's trust roots (locd-network's --ca-file).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // Pure session rules: imports nothing but the standard library; the shells give it /etc/subuid as a table.
        .target(name: "LocationCore"),
        // The ranges of subordinate uids (/etc/subuid) as a table of disjoint intervals, its reader, and which uids in
        // them have accounts of their own (SEMANTICS H9): shared by locd and locd-geoclue; Glibc only.
        .target(name: "SubordinateRanges"),
        // Manifests and the daemon configuration, parsed from TOML into the core's plain values.
        .target(
            name: "LocationConfiguration",
            dependencies: [
                "AppIdentifiers", "GeoClueConfiguration", "LocationCore", "SubordinateRanges",
                daemonOnly("TOMLKit", "TOMLKit"),
            ]
        ),
        // GeoClue's own configuration (geoclue.conf, conf.d, /etc/geolocation), read within bounds: what locd and
        // locd-geoclue take from a machine that switches from GeoClue (SEMANTICS G30-G34).
        .target(name: "GeoClueConfiguration"),
        // Text from apps and users made safe to print: control and bidi characters escaped (SEMANTICS I16). No
        // dependencies, so that every program that prints such text links it and nothing more.
        .target(name: "DisplayText"),
        // What an app id may be (SEMANTICS I15), checked wherever one enters: locd's calls and configuration, and
        // locd-geoclue's DesktopId, which has no core to ask.
        .target(name: "AppIdentifiers"),
        // JSON values, parsed and written by hand within bounds; no I/O.
        .target(name: "JSON"),
        // Generic Varlink framing, server and client on SwiftNIO.
        .target(
            name: "Varlink",
            dependencies: [
                "CEpoll",
                "JSON",
                "LocationProtocol",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The durable store of SEMANTICS §10: records, the global switch and this boot's state, in SQLite.
        .target(
            name: "LocationStore",
            dependencies: [
                "LocationCore", daemonOnly("GRDB", "GRDB.swift"),
                daemonOnly("GRDBSQLite", "GRDB.swift"),
            ]
        ),
        // libsystemd through pkg-config; `.ci/install-deps` installs libsystemd-dev.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // sd_notify, socket activation, the watchdog and the journal LogHandler.
        .target(
            name: "SystemdSupport",
            dependencies: ["CSystemd", "DisplayText", daemonOnly("Logging", "swift-log")]
        ),
        // Prints what Systemd.listenedSockets() finds; SystemdSupportTests run it under
        // systemd-socket-activate, because fd 3 of the test process itself is Dispatch's epoll.
        .executableTarget(name: "SystemdProbe", dependencies: ["SystemdSupport", "CSystemd"]),
        // Who a process is, read from /proc: its executable, real uid, the pid of a pidfd, and the app id a
        // desktop gives it (Flatpak, snap, systemd unit). No NIO, no words of locd.
        .target(name: "ProcessIdentity", dependencies: ["CPidfd"]),
        // Swift concurrency's global executor on NIO's event loops, in the static runtime too (its C half names the
        // runtime's hook, which dlsym cannot find there).
        .target(name: "CGlobalExecutorHook"),
        .target(
            name: "GlobalExecutor",
            dependencies: [
                "CGlobalExecutorHook",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // pidfd_open(2) for ProcessIdentity: a header only.
        .systemLibrary(name: "CPidfd"),
        // The wire's one vocabulary: the IDL texts, every method and error name, the wire types with their encoding
        // and decoding; JSON only, so that LocationClient stays NIO-only.
        .target(name: "LocationProtocol", dependencies: ["JSON"]),
        // The core's errors as the wire names them (LocationError → WireError): for locd and `locctl simulate`.
        .target(name: "LocationWireErrors", dependencies: ["LocationCore", "LocationProtocol"]),
        // Where fixes come from (U3): a fixed point, an NMEA file replayed, or gpsd; each bound to an event loop.
        .target(
            name: "LocationProviders",
            dependencies: [
                "JSON",
                "LocationCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The `network` provider: a Varlink client of locd-network's io.locd.NetworkLocation. A target of its own so
        // that the other providers stay free of Varlink.
        .target(
            name: "LocationNetworkProvider",
            dependencies: [
                "JSON",
                "LocationCore",
                "LocationProtocol",
                "LocationProviders",
                "Varlink",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The shell around the core: Varlink calls in, actions carried out, the store and systemd.
        .target(
            name: "LocationDaemon",
            dependencies: [
                "AppIdentifiers",
                "JSON",
                "LocationCore",
                "LocationConfiguration",
                "LocationProtocol",
                "LocationProviders",
                "LocationNetworkProvider",
                "LocationStore",
                "LocationWireErrors",
                "ProcessIdentity",
                "SystemdSupport",
                "Varlink",
                daemonOnly("Logging", "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                daemonOnly("ServiceLifecycle", "swift-service-lifecycle"),
                daemonOnly("UnixSignals", "swift-service-lifecycle"),
            ]
        ),
        // Each program's command is a library target, run by its own thin executable (which the tests and
        // `make install` use) and by the multi-call binary that the Debian packages ship (`locd-multicall`).
        .target(
            name: "LocdCommand",
            dependencies: [
                "GlobalExecutor",
                "LocationConfiguration",
                "LocationDaemon",
                "LogLevelArgument",
                "SystemdSupport",
                daemonOnly("ArgumentParser", "swift-argument-parser"),
                daemonOnly("Logging", "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                daemonOnly("ServiceLifecycle", "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(name: "locd", dependencies: ["LocdCommand"]),
        // `--log-level` of locd, locd-network and locd-geoclue: swift-log's levels as an argument, declared once for the
        // multi-call binary that links the three.
        .target(
            name: "LogLevelArgument",
            dependencies: [daemonOnly("ArgumentParser", "swift-argument-parser"), daemonOnly("Logging", "swift-log")]
        ),
        // locd, locctl, locd-agent, locd-network and locd-geoclue in one executable, which is the program its link is
        // named after: the Swift runtime and Foundation, most of each program, installed once (debian/rules).
        .executableTarget(
            name: "locd-multicall",
            dependencies: [
                "LocctlCommands", "LocdAgentCommand", "LocdCommand", "LocdGeoClueCommand", "LocdNetworkCommand",
            ]
        ),
        // sd-bus's vtable macros and fixed-arity twins of its variadic calls, for the targets on a bus.
        .target(name: "CSdBus", dependencies: ["CSystemd"]),
        // An sd-bus vtable built from Swift values, for the objects locd-geoclue and locd-agent export.
        .target(name: "BusVTable", dependencies: ["CSdBus"]),
        // org.freedesktop.GeoClue2 on the system bus, served from locd's sessions: one locd app connection per peer.
        .target(
            name: "LocationGeoClue",
            dependencies: [
                "AppIdentifiers", "BusVTable", "CEpoll", "CSdBus", "DesktopEntry", "GeoClueConfiguration", "JSON",
                "LocationClient", "LocationProtocol", "ProcessIdentity", "SubordinateRanges", "Varlink",
                daemonOnly("Logging", "swift-log"),
            ]
        ),
        .target(
            name: "LocdGeoClueCommand",
            dependencies: [
                "GlobalExecutor",
                "LocationGeoClue",
                "LogLevelArgument",
                "SubordinateRanges",
                "SystemdSupport",
                daemonOnly("ArgumentParser", "swift-argument-parser"),
                daemonOnly("Logging", "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "locd-geoclue", dependencies: ["LocdGeoClueCommand"]),
        // The `[Desktop Entry]` of an app's `.desktop` file, found by app id and read within bounds: the description
        // locd-geoclue passes for an app without a manifest, and the name and icon locd-agent shows.
        .target(name: "DesktopEntry"),
        // The person's agent (SEMANTICS §16): locd's prompts as desktop notifications on the session bus, a core that
        // decides and a shell of sd-bus and Varlink.
        // libxcb and its X-Resource extension for locd-agent's X11 desktop source (SEMANTICS L15); `.ci/install-deps`
        // installs libxcb1-dev and libxcb-res0-dev.
        .systemLibrary(name: "CXcb", pkgConfig: "xcb-res", providers: [.apt(["libxcb1-dev", "libxcb-res0-dev"])]),
        // libwayland-client, and the wlr foreign-toplevel protocol's C glue generated by wayland-scanner from the XML
        // beside it (generate.sh), for locd-agent's wlroots desktop source (SEMANTICS L17); `.ci/install-deps`
        // installs libwayland-dev.
        .systemLibrary(name: "CWaylandClient", pkgConfig: "wayland-client", providers: [.apt(["libwayland-dev"])]),
        .target(
            name: "CWlrForeignToplevel",
            dependencies: ["CWaylandClient"],
            exclude: ["generate.sh", "wlr-foreign-toplevel-management-unstable-v1.xml"]
        ),
        .target(
            name: "LocationAgent",
            dependencies: [
                "AppIdentifiers", "BusVTable", "CSdBus", "CWaylandClient", "CWlrForeignToplevel", "CXcb",
                "DesktopEntry", "DisplayText", "JSON",
                "LocationProtocol", "ProcessIdentity", "Varlink",
                daemonOnly("Logging", "swift-log"),
            ]
        ),
        .target(
            name: "LocdAgentCommand",
            dependencies: [
                "LocationAgent",
                "LocationClient",
                daemonOnly("ArgumentParser", "swift-argument-parser"),
                daemonOnly("Logging", "swift-log"),
            ]
        ),
        .executableTarget(name: "locd-agent", dependencies: ["LocdAgentCommand"]),
        // locd's way to the network (SEMANTICS U6–U12): the access points in view read from the system bus, asked of
        // an ichnaea-compatible geolocation service, served as io.locd.NetworkLocation.
        .target(
            name: "LocationNetwork",
            dependencies: [
                "CSdBus", "JSON", "LocationProtocol", "Varlink",
                daemonOnly("AsyncHTTPClient", "async-http-client"),
                daemonOnly("Logging", "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                daemonOnly("NIOSSL", "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "LocdNetworkCommand",
            dependencies: [
                "LocationNetwork",
                "LogLevelArgument",
                "SystemdSupport",
                daemonOnly("ArgumentParser", "swift-argument-parser"),
                daemonOnly("Logging", "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "locd-network", dependencies: ["LocdNetworkCommand"]),
        // `locctl simulate`: scenarios run through the core in virtual time, with no daemon.
        .target(
            name: "LocationSimulation",
            dependencies: [
                "LocationCore", "LocationConfiguration", "LocationProtocol", "LocationWireErrors",
                daemonOnly("TOMLKit", "TOMLKit"),
            ]
        ),
        // locctl's commands, one file each.
        .target(
            name: "LocctlCommands",
            dependencies: [
                "DisplayText",
                "JSON",
                "LocationConfiguration",
                "LocationProtocol",
                "LocationSimulation",
                "Varlink",
                daemonOnly("ArgumentParser", "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "locctl", dependencies: ["LocctlCommands"]),
        // The Swift client library for apps: async/await, Core Location's shapes, reconnection across restarts. It
        // and what it uses (JSON, LocationProtocol, Varlink, CEpoll) depend on SwiftNIO alone, which is what an app
        // resolves.
        .target(name: "LocationClient", dependencies: ["JSON", "LocationProtocol", "Varlink"]),
        // The README walkthrough's app: a session, its diagnostics and live updates, printed.
        .executableTarget(
            name: "locd-example",
            dependencies: ["LocationClient", daemonOnly("ArgumentParser", "swift-argument-parser")]
        ),
        // `locd-core-bench`: LocationCore alone, driven as the shell would drive it.
        .executableTarget(
            name: "LocationCoreBenchmark",
            dependencies: ["LocationCore", "SubordinateRanges", daemonOnly("ArgumentParser", "swift-argument-parser")]
        ),
        // epoll(7) for locd-bench, which Glibc's module map leaves out.
        .systemLibrary(name: "CEpoll"),
        // `locd-bench`: the real daemon under load from many connections, beside a NIO echo server.
        .executableTarget(
            name: "LocationDaemonBenchmark",
            dependencies: [
                "CEpoll",
                "LocationProtocol",
                "Varlink",
                daemonOnly("ArgumentParser", "swift-argument-parser"),
                daemonOnly("Histogram", "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The floor of locd-bench's GeoClue scenario: the churn cycle's six calls answered in C by sd-bus, nothing else.
        .executableTarget(name: "locd-bench-trivial", dependencies: ["CSystemd"]),
        // Fuzzing: the targets as a library (the regression tests run them), and `locd-fuzz`, which is a
        // libFuzzer binary when Fuzz/run.sh builds it and a replayer of input files otherwise.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "LocationConfiguration",
                "LocationCore",
                "LocationDaemon",
                "LocationProviders",
                "Varlink",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "locd-fuzz", dependencies: ["FuzzTargets"]),
        // What the test targets share: the core driver, polling with a deadline, a NOTIFY_SOCKET listener,
        // temporary directories, a seeded generator, waiting for a child's exit, the real `locd` started on a socket
        // of its own, a fake locd-network, and a person's desktop (dunst under Xvfb on a session bus of its own).
        .target(
            name: "LocationTestSupport",
            dependencies: [
                "LocationCore", "JSON", "LocationProtocol", "Varlink",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/LocationTestSupport",
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzTargets", "LocationTestSupport"]),
        // The documents against the code: every rule id cited in Sources/ and Tests/ is defined in SEMANTICS.md.
        .testTarget(name: "DocsTests", dependencies: ["LocationTestSupport"]),
        .testTarget(
            name: "LocationCoreTests",
            dependencies: [
                "AppIdentifiers", "JSON", "LocationCore", "LocationProtocol", "LocationTestSupport",
                "LocationWireErrors", daemonOnly("PropertyBased", "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "LocationStoreTests",
            dependencies: [
                "LocationStore", "LocationCore", "LocationTestSupport", daemonOnly("GRDB", "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "LocationConfigurationTests",
            dependencies: [
                "AppIdentifiers", "GeoClueConfiguration", "LocationConfiguration", "LocationCore",
                "LocationTestSupport", "SubordinateRanges",
            ]
        ),
        // App ids and process facts from fake /proc trees, and from the test process's own.
        .testTarget(name: "ProcessIdentityTests", dependencies: ["ProcessIdentity", "LocationTestSupport"]),
        // The Varlink module on its own: JSON text, frames, method names, the flood log; no daemon.
        .testTarget(
            name: "VarlinkTests",
            dependencies: [
                "JSON", "Varlink", "LocationTestSupport", "locctl", .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The client library against the real daemon, the example app built on it, and the documents' program built
        // as an app that depends on locd with `traits: []` (locctl answers its prompt).
        .testTarget(
            name: "LocationClientTests",
            dependencies: [
                "locd", "locctl", "locd-example", "LocationClient", "LocationProtocol", "LocationTestSupport", "JSON",
                "Varlink", "ProcessIdentity",
            ]
        ),
        // The wire's vocabulary against the IDL, its golden messages, and the sources that must name it.
        .testTarget(
            name: "LocationProtocolTests",
            dependencies: ["JSON", "LocationProtocol", "LocationTestSupport", "Varlink"],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "LocationDaemonTests",
            dependencies: [
                "locd", "locctl", "locd-network", "JSON", "Varlink", "LocationProtocol", "LocationDaemon",
                "LocationCore", "LocationStore", "ProcessIdentity", "SystemdSupport", "LocationTestSupport",
                daemonOnly("GRDB", "GRDB.swift"),
                daemonOnly("Logging", "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            exclude: ["Scripts", "Fixtures"]
        ),
        .testTarget(
            name: "LocationProvidersTests",
            dependencies: [
                "JSON",
                "LocationProviders",
                "LocationNetworkProvider",
                "Varlink",
                "LocationCore",
                "LocationProtocol",
                "LocationTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "LocationSimulationTests",
            dependencies: ["LocationSimulation", "LocationConfiguration", "LocationCore", "LocationTestSupport"],
            exclude: ["Expected"]
        ),
        // locctl's parsing and rendering on fixed Admin replies, against golden files; no daemon.
        .testTarget(
            name: "LocctlTests",
            dependencies: ["LocctlCommands", "JSON", "LocationProtocol", "Varlink"],
            exclude: ["Fixtures"]
        ),
        // locd-geoclue between a private dbus-daemon and the real locd, driven by gdbus, busctl, Python GI and
        // where-am-i; its clients' prompts answered by locd-agent on a desktop.
        .testTarget(
            name: "GeoClueTests",
            dependencies: [
                "locd", "locctl", "locd-agent", "locd-geoclue", "locd-example", "locd-network", "JSON",
                "LocationGeoClue", "LocationTestSupport", "Varlink",
            ],
            exclude: ["Fixtures"]
        ),
        // locd-network's policy and wire formats alone, then the real binary between a stand-in wpa_supplicant or
        // NetworkManager on a private bus and a stand-in geolocation service on 127.0.0.1.
        .testTarget(
            name: "LocationNetworkTests",
            dependencies: [
                "locd-network", "LocationNetwork", "LocationProtocol", "LocationTestSupport", "JSON", "Varlink",
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // locd-agent's core on its own, then the real binary between the real locd and a real notification server
        // (dunst under Xvfb, or a stand-in without actions) on a private session bus.
        .testTarget(
            name: "LocationAgentTests",
            dependencies: [
                "locd", "locctl", "locd-agent", "LocationAgent", "LocationTestSupport", "JSON", "Varlink",
                daemonOnly("Logging", "swift-log"),
            ]
        ),
        // locd-multicall through links named after the programs, against the programs' own executables.
        .testTarget(
            name: "MulticallTests",
            dependencies: [
                "locd-multicall", "locd", "locctl", "locd-agent", "locd-network", "locd-geoclue", "LocationTestSupport",
            ]
        ),
        .testTarget(
            name: "SystemdSupportTests",
            dependencies: ["SystemdSupport", "LocationTestSupport", daemonOnly("Logging", "swift-log")]
        ),
        // Every event sequence of a small world around the core to a depth, states deduplicated, checked against
        // the rules after every event; `locd-explore` runs it, its tests at the CI size and per invariant.
        .target(name: "LocationExplorer", dependencies: ["LocationCore"]),
        .executableTarget(
            name: "locd-explore",
            dependencies: ["LocationExplorer", daemonOnly("ArgumentParser", "swift-argument-parser")]
        ),
        .testTarget(name: "LocationExplorerTests", dependencies: ["LocationExplorer", "LocationCore"]),
    ],
    swiftLanguageModes: [.v6]
)
