import AppIdentifiers
import LocationTestSupport
import Testing

@testable import LocationConfiguration
@testable import LocationCore

/// I15 where app ids enter from files: locd.toml's tables and lists, manifests, and GeoClue's sections.
@Suite("App ids in configuration")
struct AppIdentifierConfigurationTests {
    @Test(
        """
        I15: an [[administered-app]] id or a restricted-apps entry that is no app id stops loading with file, line, \
        key and the rule; ids of the kinds the rule names load
        """
    )
    func locdFiles() {
        let file = "/etc/locd/locd.toml"
        let administered = configurationFailure("[[administered-app]]\nid = \"org.gnome.Shell\\u001b[2J\"\n")
        #expect(
            administered?.hasPrefix("\(file):2: key administered-app[1].id: not an app id: an app id is 1 to 255")
                == true,
            "\(administered ?? "loaded")"
        )
        #expect(administered?.contains("SEMANTICS I15") == true)
        let restricted = configurationFailure("restricted-apps = [\"gammastep\", \"bad app\"]\n")
        #expect(
            restricted?.hasPrefix("\(file):1: key restricted-apps: expected an array of app ids") == true,
            "\(restricted ?? "loaded")"
        )
        #expect(restricted?.contains("at position 2") == true, "\(restricted ?? "loaded")")
        let good = """
            restricted-apps = ["gammastep", "gnome-datetime-panel", "geoclue-where-am-i", "org.gnome.Maps", "snap_key"]
            [[administered-app]]
            id = "org.gnome.Shell"
            authorized = true
            """
        #expect(configurationFailure(good) == nil)
    }

    @Test("I15: a manifest whose file name is no app id is rejected at its id, naming the rule")
    func manifestFileName() {
        let outcome = ManifestParser.parse(
            text: "id = \"com ex maps\"\nidentity = \"any\"\n",
            file: "apps.d/com ex maps.toml"
        )
        #expect(outcome.manifest == nil)
        #expect(outcome.errors.first?.key == "id", "\(outcome.errors)")
        #expect(outcome.errors.first?.message.contains("SEMANTICS I15") == true, "\(outcome.errors)")
        let good = ManifestParser.parse(
            text: "id = \"org.gnome.Maps\"\nidentity = \"any\"\n",
            file: "apps.d/org.gnome.Maps.toml"
        )
        #expect(good.manifest != nil, "\(good.errors)")
    }

    @Test("I15, G31: an imported GeoClue section that names no app id grants nothing and is said not carried")
    func geoClueSection() throws {
        try TemporaryDirectory.with { directory in
            let geoclue = try directory.write(
                "geoclue.conf",
                "[evil app]\nallowed=true\nsystem=true\n[org.gnome.Shell]\nallowed=true\nsystem=true\n"
            )
            let main = try directory.write(
                "locd.toml",
                "[geoclue]\nconfig = \"\(geoclue)\"\n[provider]\nlatitude = 1.0\n"
            )
            let configuration = try DaemonConfiguration.load(path: main)
            #expect(configuration.core.administeredApps.keys.sorted() == ["org.gnome.Shell"])
            let said = configuration.geoClueNotCarried.filter { $0.contains("evil app") }
            #expect(said.count == 1 && said[0].contains("SEMANTICS I15"), "\(configuration.geoClueNotCarried)")
        }
    }
}
