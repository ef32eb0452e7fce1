import Foundation
import GeoClueConfiguration
import LocationTestSupport
import Testing

@testable import LocationConfiguration
@testable import LocationCore

/// GeoClue's configuration as locd reads it (SEMANTICS G30–G33): the key file reader, `/etc/geolocation`, and what
/// `locd.toml` takes from them.
@Suite("GeoClue's configuration")
struct GeoClueConfigurationTests {
    /// Debian 12's `/etc/geoclue/geoclue.conf` (GeoClue 2.6), comments left out.
    static let debian = """
        # Configuration file for Geoclue
        [agent]
        whitelist=geoclue-demo-agent;gnome-shell;io.elementary.desktop.agent-geoclue2;sm.puri.Phosh;lipstick

        [network-nmea]
        enable=true

        [3g]
        enable=true

        [cdma]
        enable=true

        [modem-gps]
        enable=true

        [wifi]
        enable=true
        submit-data=false
        submission-nick=geoclue

        [compass]
        enable=true

        [gnome-datetime-panel]
        allowed=true
        system=true
        users=

        [epiphany]
        allowed=true
        system=false
        users=

        """

    private func keyFile(
        _ text: String,
        file: String = "/etc/geoclue/geoclue.conf"
    ) throws(GeoClueIssue) -> GeoClueKeyFile {
        var keyFile = GeoClueKeyFile()
        try keyFile.parse(text: text, file: file)
        return keyFile
    }

    private func failure(_ body: () throws(GeoClueIssue) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: The reader

    @Test("G30: conf.d drop-ins are read in name order after geoclue.conf, a later file's key replacing the same key")
    func dropInOrder() throws {
        try TemporaryDirectory.with { directory in
            let main = try directory.write("geoclue.conf", "[wifi]\nenable=true\nurl=https://a.example/\n")
            try directory.write("conf.d/20-last.conf", "[wifi]\nurl=https://c.example/\n")
            try directory.write("conf.d/10-first.conf", "[wifi]\nurl=https://b.example/\nenable=false\n")
            try directory.write("conf.d/.hidden.conf", "[wifi]\nurl=https://hidden.example/\n")
            try directory.write("conf.d/notes.txt", "[wifi]\nurl=https://txt.example/\n")
            let keyFile = try #require(try GeoClueKeyFile.load(main: main))
            let url = try #require(keyFile.entry("wifi", "url"))
            #expect(url.value == "https://c.example/")
            #expect(url.file == directory.at("conf.d/20-last.conf"))
            #expect(url.line == 2)
            #expect(keyFile.entry("wifi", "enable")?.value == "false")
            #expect(keyFile.section("wifi")?.keys == ["enable", "url"])
        }
    }

    @Test("G30: a missing geoclue.conf is nothing to import, not an error")
    func missingMain() throws {
        try TemporaryDirectory.with { directory in
            try directory.write("conf.d/10.conf", "[wifi]\nenable=false\n")
            #expect(try GeoClueKeyFile.load(main: directory.at("geoclue.conf")) == nil)
        }
    }

    @Test("G30: GLib's key file syntax: spaces around =, comments, escapes, lists and booleans 1/0")
    func syntax() throws {
        let keyFile = try self.keyFile(
            "  # comment\n[agent]\nwhitelist = a;b\\;c; ;d;\n[x]\nallowed = 0\nsystem=1\nnote=one\\stwo\\\\\n"
        )
        #expect(keyFile.entry("agent", "whitelist")?.list == ["a", "b;c", "d"])
        #expect(try keyFile.entry("x", "allowed")?.bool(section: "x", key: "allowed") == false)
        #expect(try keyFile.entry("x", "system")?.bool(section: "x", key: "system") == true)
        #expect(keyFile.entry("x", "note")?.value == "one two\\")
    }

    @Test("G30: a line that is no key file line, a key before any section, a bad escape: an error naming file and line")
    func badLines() {
        let file = "/etc/geoclue/conf.d/90.conf"
        func parse(_ text: String) -> String? {
            failure { () throws(GeoClueIssue) in _ = try keyFile(text, file: file) }
        }
        #expect(
            parse("[wifi]\nenable\n")
                == "\(file):2: expected key=value, a [section], a # comment or a blank line"
        )
        #expect(
            parse("\nenable=true\n")
                == "\(file):2: key enable: a key before any [section]: GeoClue's keys belong to a section"
        )
        #expect(parse("[wifi\n") == "\(file):1: expected a section name in brackets, such as [wifi]")
        #expect(
            parse("[wifi]\nurl=a\\qb\n")
                == "\(file):2: key wifi.url: unknown escape \\q: GLib's key files know \\s \\n \\t \\r \\\\ \\;"
        )
    }

    @Test("G30: the bounds: a file past 64 KiB and more than 256 sections are refused, naming the file")
    func bounds() throws {
        let sections = (0...GeoClueKeyFile.maximumSections).map { "[app\($0)]\nallowed=true\n" }.joined()
        let message = failure { () throws(GeoClueIssue) in _ = try keyFile(sections, file: "/g.conf") }
        #expect(message?.hasPrefix("/g.conf:\(2 * GeoClueKeyFile.maximumSections + 1): more than 256 sections") == true)
        try TemporaryDirectory.with { directory in
            let big = try directory.write("geoclue.conf", String(repeating: "#", count: 65_537))
            #expect(
                failure { () throws(GeoClueIssue) in _ = try GeoClueKeyFile.load(main: big) }
                    == "\(big): larger than 65536 bytes; GeoClue's configuration is a few dozen lines"
            )
        }
    }

    @Test("G30: /etc/geolocation: latitude, longitude, altitude and accuracy one a line, # comments and blanks skipped")
    func geolocation() throws {
        let text = "# where this machine is\n48.85 # latitude\n\n2.35\n 35.0\n# accuracy next\n25\n"
        #expect(
            try GeoClueStaticLocation.parse(text: text, file: "/etc/geolocation")
                == GeoClueStaticLocation(latitude: 48.85, longitude: 2.35, altitude: 35, accuracy: 25)
        )
        #expect(
            try GeoClueStaticLocation.parse(text: "-33.9\n151.2\n", file: "/etc/geolocation")
                == GeoClueStaticLocation(latitude: -33.9, longitude: 151.2)
        )
    }

    @Test("G30: a bad /etc/geolocation is an error naming file, line and the number it should hold")
    func badGeolocation() {
        func parse(_ text: String) -> String? {
            failure { () throws(GeoClueIssue) in
                _ = try GeoClueStaticLocation.parse(text: text, file: "/etc/geolocation")
            }
        }
        #expect(
            parse("48.8\nparis\n")
                == "/etc/geolocation:2: key longitude: expected a number (the longitude), found \"paris\""
        )
        #expect(
            parse("# only\n91\n2\n") == "/etc/geolocation:2: key latitude: expected degrees in [-90.0, 90.0], found 91"
        )
        #expect(
            parse("1\n2\n3\n-4\n") == "/etc/geolocation:4: key accuracy: expected a number of metres >= 0, found -4"
        )
        #expect(
            parse("48.8\n")
                == "/etc/geolocation: key longitude: no longitude: the file holds latitude and longitude, then altitude "
                + "and accuracy, one a line"
        )
        #expect(
            parse("1\n2\n3\n4\n5\n")
                == "/etc/geolocation:5: a fifth number: the file holds latitude, longitude, altitude and accuracy, "
                + "one a line"
        )
    }

    // MARK: What it means

    @Test(
        "G31, G33: Debian's geoclue.conf: the Wi-Fi source, the apps and the whitelist are read; the rest is not carried, each with why"
    )
    func debianSettings() throws {
        let settings = try GeoClueSettings(keyFile(Self.debian))
        #expect(settings.wifi)
        #expect(settings.wifiURL == nil)
        #expect(!settings.staticSource)
        #expect(
            settings.agentWhitelist
                == [
                    "geoclue-demo-agent", "gnome-shell", "io.elementary.desktop.agent-geoclue2", "sm.puri.Phosh",
                    "lipstick",
                ]
        )
        #expect(
            settings.apps == [
                GeoClueSettings.App(id: "gnome-datetime-panel", allowed: true, system: true),
                GeoClueSettings.App(id: "epiphany", allowed: true, system: false),
            ]
        )
        let file = "/etc/geoclue/geoclue.conf"
        #expect(
            settings.notCarried.map(\.description) == [
                "\(file):6: key network-nmea.enable: not carried: locd does not read NMEA receivers announced on the "
                    + "network nor GeoClue's nmea-socket; a receiver is a gpsd provider in locd.toml ([[provider]] "
                    + "kind = \"gpsd\")",
                "\(file):9: key 3g.enable: not carried: locd has no cell-tower source (ModemManager)",
                "\(file):12: key cdma.enable: not carried: locd has no CDMA source (ModemManager)",
                "\(file):15: key modem-gps.enable: not carried: locd has no ModemManager source; a modem's GPS read "
                    + "by gpsd is a gpsd provider",
                "\(file):23: key compass.enable: not carried: locd has no heading source (iio-sensor-proxy's compass)",
            ]
        )
    }

    @Test("G33: submit-data=true, an unknown key of a source and of an app are not carried; enable=false is carried")
    func notCarried() throws {
        let text =
            "[wifi]\nsubmit-data=true\nsubmission-url=https://x/\nfrequency=3\n[3g]\nenable=false\n[maps]\ncolour=red\n"
        let settings = try GeoClueSettings(keyFile(text, file: "/g.conf"))
        #expect(
            settings.notCarried.map(\.description) == [
                "/g.conf:2: key wifi.submit-data: not carried: locd never submits Wi-Fi or position data to a service",
                "/g.conf:4: key wifi.frequency: not carried: GeoClue 2.6 defines no key frequency in [wifi], nor does locd",
                "/g.conf:8: key maps.colour: not carried: an app's section has allowed, system and users only",
            ]
        )
    }

    @Test("G30: a value locd carries that it cannot read is an error naming file, line and key")
    func badValues() {
        func settings(_ text: String) -> String? {
            failure { () throws(GeoClueIssue) in _ = try GeoClueSettings(keyFile(text, file: "/g.conf")) }
        }
        #expect(settings("[wifi]\nenable=yes\n") == "/g.conf:2: key wifi.enable: expected true or false, found \"yes\"")
        #expect(
            settings("[app]\nusers=alice;1000\n")
                == "/g.conf:2: key app.users: expected uids separated by ;, found \"alice\""
        )
        #expect(
            settings("[app]\nsystem=maybe\n") == "/g.conf:2: key app.system: expected true or false, found \"maybe\""
        )
    }

    // MARK: locd.toml

    @Test("G32: [[administered-app]] tables: id, authorized, users; a later file's table of an id replaces it")
    func administeredApps() throws {
        let file = "/etc/locd/locd.toml"
        let text = """
            [[administered-app]]
            id = "gnome-datetime-panel"
            authorized = true

            [[administered-app]]
            id = "redshift"
            users = [1000, 1001]
            """
        let configuration = try DaemonConfiguration.parse(text: text, file: file)
        #expect(
            configuration.core.administeredApps == [
                "gnome-datetime-panel": AdministeredApp(authorized: true),
                "redshift": AdministeredApp(authorized: false, users: [1000, 1001]),
            ]
        )
        let later = try DaemonConfiguration.parse(
            text: "[[administered-app]]\nid = \"redshift\"\nauthorized = true\n",
            file: file,
            over: configuration
        )
        #expect(later.core.administeredApps["redshift"] == AdministeredApp(authorized: true))
        #expect(later.core.administeredApps["gnome-datetime-panel"] == AdministeredApp(authorized: true))
        #expect(
            configurationFailure("[[administered-app]]\nauthorized = true\n")
                == "\(file):1: key administered-app[1]: each [[administered-app]] table needs an id: the app id it is for"
        )
        #expect(
            configurationFailure("[[administered-app]]\nid = \"a\"\nusers = [\"alice\"]\n")?.hasPrefix(
                "\(file):3: key administered-app[1].users: expected an array of uids (integers >= 0)"
            ) == true
        )
        #expect(
            configurationFailure("[geoclue]\nconf = \"/etc/geoclue/geoclue.conf\"\n")
                == "\(file):2: key geoclue.conf: unknown key; allowed in [geoclue]: config, geolocation"
        )
    }

    @Test("G31: locd imports GeoClue's Wi-Fi source, static source and app sections when its files say nothing of them")
    func importing() throws {
        try TemporaryDirectory.with { directory in
            let geoclue = try directory.write(
                "geoclue/geoclue.conf",
                "[wifi]\nenable=true\nurl=https://ichnaea.example/v1/geolocate\n[static-source]\nenable=true\n"
                    + "[gnome-datetime-panel]\nallowed=true\nsystem=true\nusers=\n[denied-app]\nallowed=false\n"
                    + "[redshift]\nallowed=true\nsystem=false\nusers=1000\n[epiphany]\nallowed=true\n[3g]\nenable=true\n"
            )
            let point = try directory.write("geolocation", "48.85\n2.35\n35\n25\n")
            let main = try directory.write(
                "locd.toml",
                "[geoclue]\nconfig = \"\(geoclue)\"\ngeolocation = \"\(point)\"\n"
            )
            let configuration = try DaemonConfiguration.loadOwn(path: main)
            var fixed = DaemonConfiguration.Provider()
            fixed.latitude = 48.85
            fixed.longitude = 2.35
            fixed.altitude = 35
            fixed.accuracy = 25
            var network = DaemonConfiguration.Provider()
            network.kind = .network
            network.url = "https://ichnaea.example/v1/geolocate"
            // U28: the built-in list, the static source first, the gpsd provider kept, the network one asking `url`.
            let gpsd = DaemonConfiguration.Provider.builtIn[0]
            #expect(configuration.providers == [fixed, gpsd, network])
            #expect(configuration.restrictedApps == ["denied-app"])
            #expect(
                configuration.core.administeredApps == [
                    "gnome-datetime-panel": AdministeredApp(authorized: true),
                    "redshift": AdministeredApp(authorized: false, users: [1000]),
                ]
            )
            #expect(
                configuration.geoClueNotCarried == [
                    "\(geoclue):19: key 3g.enable: not carried: locd has no cell-tower source (ModemManager)"
                ]
            )
            // Unset, nothing is imported; a missing file neither.
            var builtIn = DaemonConfiguration()
            builtIn.providers = DaemonConfiguration.Provider.builtIn
            #expect(try DaemonConfiguration.loadOwn(path: directory.write("other.toml", "")) == builtIn)
            let missing = try directory.write("missing.toml", "[geoclue]\nconfig = \"\(directory.at("none.conf"))\"\n")
            var expected = builtIn
            expected.geoClue.config = directory.at("none.conf")
            #expect(try DaemonConfiguration.loadOwn(path: missing) == expected)
        }
    }

    @Test("G31: locd's own files win: a written provider keeps GeoClue's sources out, a named app its section")
    func locdWins() throws {
        try TemporaryDirectory.with { directory in
            let geoclue = try directory.write(
                "geoclue.conf",
                "[wifi]\nenable=true\n[gnome-datetime-panel]\nsystem=true\n[maps]\nallowed=false\n"
                    + "[weather]\nallowed=false\n"
            )
            let main = try directory.write(
                "locd.toml",
                "restricted-apps = [\"gnome-datetime-panel\"]\n[[administered-app]]\nid = \"maps\"\nauthorized = true\n"
                    + "[geoclue]\nconfig = \"\(geoclue)\"\n[provider]\nlatitude = 1.0\n"
            )
            let configuration = try DaemonConfiguration.loadOwn(path: main)
            #expect(configuration.providers.count == 1)
            #expect(configuration.provider.kind == .fixedPoint)
            #expect(configuration.provider.latitude == 1)
            #expect(configuration.restrictedApps == ["gnome-datetime-panel", "weather"])
            #expect(configuration.core.administeredApps == ["maps": AdministeredApp(authorized: true)])
        }
    }

    @Test("G30: a bad GeoClue file stops loading with file, line and key, as a bad locd.toml does")
    func badImport() throws {
        try TemporaryDirectory.with { directory in
            let geoclue = try directory.write("geoclue.conf", "[static-source]\nenable=true\n")
            try directory.write("conf.d/50-url.conf", "[wifi]\nurl=http://example.com/\n")
            let point = try directory.write("geolocation", "48.85\n")
            let main = try directory.write(
                "locd.toml",
                "[geoclue]\nconfig = \"\(geoclue)\"\ngeolocation = \"\(point)\"\n"
            )
            #expect(throws: ConfigurationIssue.self) { try DaemonConfiguration.loadOwn(path: main) }
            do {
                _ = try DaemonConfiguration.loadOwn(path: main)
            } catch let error as ConfigurationIssue {
                #expect(error.description.hasPrefix("\(point): key longitude: no longitude"))
            }
            try directory.write("geolocation", "48.85\n2.35\n")
            do {
                _ = try DaemonConfiguration.loadOwn(path: main)
                Issue.record("an http:// url on another host loaded")
            } catch let error as ConfigurationIssue {
                #expect(
                    error.description
                        == "\(directory.at("conf.d/50-url.conf")):2: key wifi.url: expected an https:// URL, or "
                        + "http:// on a loopback host, found \"http://example.com/\""
                )
            }
        }
    }
}
