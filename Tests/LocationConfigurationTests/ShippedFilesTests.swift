import Foundation
import LocationTestSupport
import Testing

@testable import LocationConfiguration
@testable import LocationCore

/// The files in `config/` load with no error and no warning, and say what they claim to.
@Suite("Shipped files")
struct ShippedFilesTests {
    private let config = Repository.root() + "/config"

    @Test(
        "§11, U28: the shipped locd.toml sets every key to its built-in default and writes no provider: gpsd, network"
    )
    func shippedConfiguration() throws {
        let configuration = try DaemonConfiguration.loadOwn(path: config + "/locd.toml")
        var expected = DaemonConfiguration()
        expected.providers = DaemonConfiguration.Provider.builtIn
        #expect(configuration == expected)
        #expect(configuration.providers.map(\.kind) == [.gpsd, .network])
        #expect(!configuration.providers.contains { $0.kind == .fixedPoint })
    }

    @Test(
        "I8, I13, G30: the drop-in installed with locd-geoclue names its user and executable as the one broker, and GeoClue's configuration"
    )
    func shippedGeoClueDropIn() throws {
        let text = try String(contentsOfFile: config + "/geoclue.toml", encoding: .utf8)
        let configuration = try DaemonConfiguration.parse(text: text, file: "/etc/locd/locd.toml.d/geoclue.toml")
        var expected = DaemonConfiguration()
        expected.brokers = [Broker(user: "locd-geoclue", executable: "/usr/bin/locd-geoclue")]
        // G30: and GeoClue's configuration, which locd reads where the machine had GeoClue.
        expected.geoClue.config = "/etc/geoclue/geoclue.conf"
        #expect(configuration == expected)
    }

    @Test("§11: the shipped demo.toml loads with the demo's values and its own socket, never the system's")
    func shippedDemo() throws {
        let configuration = try DaemonConfiguration.loadOwn(path: config + "/demo.toml")
        var expected = DaemonConfiguration()
        expected.socket = ".run/io.locd"
        expected.stateDirectory = ".run/state"
        expected.appsDirectories = ["config/apps.d"]
        expected.allowUnknownApps = true
        expected.lifecycle.promptTimeout = .seconds(60)
        expected.lifecycle.agentWait = .seconds(60)
        #expect(configuration == expected)
        // Whoever runs it, root included, the demo serves inside the checkout.
        #expect(configuration.socketPath(uid: 0, environment: [:]) == ".run/io.locd")
    }

    @Test(
        "G35, G32, M5: the common GeoClue clients' manifests load with no error, each by executable, warning only of what is not installed"
    )
    func shippedGeoClueManifests() {
        let apps = config + "/geoclue-apps.d"
        let result = ManifestLoader.load(directories: [apps])
        #expect(result.errors == [])
        // M5: the only warnings are of the clients this machine does not have installed.
        for warning in result.warnings.map(\.description) {
            let path = warning.split(separator: "\"").dropFirst().first.map(String.init) ?? ""
            #expect(warning.contains("does not exist") && !FileManager.default.fileExists(atPath: path), "\(warning)")
        }
        let expected: [String: [String]] = [
            "gnome-datetime-panel": ["/usr/libexec/gsd-datetime"],
            "gnome-color-panel": ["/usr/libexec/gsd-color"],
            "org.gnome.Maps": ["/usr/bin/gjs-console"],
            "org.gnome.Weather": ["/usr/bin/gjs-console"],
            "gammastep": ["/usr/bin/gammastep"],
            "redshift": ["/usr/bin/redshift"],
            "geoclue-where-am-i": ["/usr/libexec/geoclue-2.0/demos/where-am-i"],
            "xdg-desktop-portal": ["/usr/libexec/xdg-desktop-portal"],
            // G32: the desktop components Debian's geoclue.conf says system=true of, so that the grant reaches them.
            "org.gnome.Shell": ["/usr/bin/gnome-shell"],
            "sm.puri.Phosh": ["/usr/libexec/phosh"],
        ]
        #expect(Set(result.manifests.map(\.appID)) == Set(expected.keys))
        for manifest in result.manifests {
            #expect(manifest.identity == .executable, "\(manifest.appID)")
            #expect(manifest.executables == expected[manifest.appID], "\(manifest.appID)")
            #expect(manifest.whenInUseUsageDescription?.isEmpty == false, "\(manifest.appID)")
            // L14: the programs without a window ask for Always, saying why.
            let windowless = !["geoclue-where-am-i", "org.gnome.Maps", "org.gnome.Weather"].contains(manifest.appID)
            #expect(manifest.backgroundOnly == windowless, "\(manifest.appID)")
            if windowless {
                let always = manifest.alwaysAndWhenInUseUsageDescription ?? ""
                #expect(always.contains("window") && always.contains("at any time") || always.contains("all day"))
            }
        }
    }

    @Test("G35: make install puts the GeoClue clients' manifests in share/locd/apps.d, never the demo's")
    func installedManifests() throws {
        let rules = try String(contentsOfFile: Repository.root() + "/systemd/install.mk", encoding: .utf8)
        #expect(rules.contains("config/geoclue-apps.d/*.toml"))
        #expect(rules.contains("$(DESTDIR)$(PREFIX)/share/locd/apps.d/$${manifest##*/}"))
        // The demo's manifests (identity = "any") are named only in a comment, never in a rule.
        let commands = rules.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!commands.contains { $0.contains("config/apps.d") })
    }

    @Test("M1: the shipped example manifests load with no errors and no warnings")
    func shippedManifests() {
        let apps = config + "/apps.d"
        let result = ManifestLoader.load(directories: [apps])
        #expect(result.errors == [])
        #expect(result.warnings == [])
        #expect(
            result.manifests == [
                Manifest(
                    appID: "com.example.fitness",
                    source: apps + "/com.example.fitness.toml",
                    whenInUseUsageDescription: "Fitness records the route of your workout.",
                    backgroundLocation: true,
                    identity: .any
                ),
                Manifest(
                    appID: "com.example.maps",
                    source: apps + "/com.example.maps.toml",
                    whenInUseUsageDescription: "Maps shows where you are and finds places near you.",
                    alwaysAndWhenInUseUsageDescription: "Maps keeps guiding you while you use other apps.",
                    temporaryUsageDescriptions: ["Navigation": "Turn-by-turn directions need your precise location."],
                    identity: .any
                ),
                Manifest(
                    appID: "com.example.weather",
                    source: apps + "/com.example.weather.toml",
                    whenInUseUsageDescription: "Weather shows the forecast where you are.",
                    defaultAccuracyReduced: true,
                    requireExplicitServiceSession: true,
                    identity: .any
                ),
            ]
        )
    }
}
