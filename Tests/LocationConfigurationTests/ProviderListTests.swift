import LocationTestSupport
import Testing

@testable import LocationConfiguration
@testable import LocationCore

/// Several providers as `[[provider]]` tables, the network kind's keys, and `stale-after` (SEMANTICS U13, U14, U17).
@Suite("Provider list")
struct ProviderListTests {
    private let file = "/etc/locd/locd.toml"

    /// The one-line message that loading `text` as `/etc/locd/locd.toml` fails with.
    private func failure(_ text: String) -> String? { configurationFailure(text, file: file) }

    @Test("U13: [[provider]] tables are read in order, each from the defaults, each with its own keys")
    func list() throws {
        let configuration = try DaemonConfiguration.parse(
            text: """
                [[provider]]
                kind = "gpsd"
                socket = "/run/locd/gpsd.sock"
                stale-after = 3

                [[provider]]
                kind = "network"
                url = "https://location.example.org/v1/geolocate"
                consider-ip = false
                interval = 120
                minimum-interval = 20
                access-points = "network-manager"
                """,
            file: file
        )
        #expect(configuration.providers.map(\.kind) == [.gpsd, .network])
        let gpsd = configuration.providers[0]
        #expect(gpsd.socket == "/run/locd/gpsd.sock" && gpsd.staleAfter == 3 && gpsd.freshFor == 3)
        let network = configuration.providers[1]
        #expect(network.socket == nil && network.networkSocket == "/run/locd/network.sock")
        #expect(network.url == "https://location.example.org/v1/geolocate")
        #expect(network.considerIP == false && network.interval == 120 && network.minimumInterval == 20)
        #expect(network.accessPoints == .networkManager)
        #expect(network.staleAfter == nil && network.freshFor == 180)
        #expect(configuration.provider == gpsd, "provider is the first of the list")
    }

    @Test("U13: the network kind's defaults: its socket, beaconDB, consider-ip, 300 s and 10 s, auto")
    func networkDefaults() throws {
        let configuration = try DaemonConfiguration.parse(text: "[[provider]]\nkind = \"network\"\n", file: file)
        let network = try #require(configuration.providers.first)
        #expect(configuration.providers.count == 1)
        #expect(network.networkSocket == "/run/locd/network.sock")
        #expect(network.url == "https://api.beacondb.net/v1/geolocate")
        #expect(network.considerIP && network.interval == 300 && network.minimumInterval == 10)
        #expect(network.accessPoints == .auto)
    }

    @Test("U14: stale-after defaults by kind: 5 s for gpsd and nmea, never for static, interval + 60 s for network")
    func staleAfterDefaults() {
        var provider = DaemonConfiguration.Provider()
        #expect(provider.freshFor == .infinity)
        provider.kind = .gpsd
        #expect(provider.freshFor == 5)
        provider.kind = .nmea
        #expect(provider.freshFor == 5)
        provider.kind = .network
        provider.interval = 30
        #expect(provider.freshFor == 90)
        provider.staleAfter = 7
        #expect(provider.freshFor == 7)
    }

    @Test("U17: a single [provider] table is a list of one, as before; the network kind may be its kind")
    func singleTable() throws {
        let configuration = try DaemonConfiguration.parse(
            text: "[provider]\nkind = \"gpsd\"\nport = 2948\n",
            file: file
        )
        #expect(configuration.providers.count == 1)
        #expect(configuration.provider.kind == .gpsd && configuration.provider.port == 2948)
        #expect(DaemonConfiguration().providers == [DaemonConfiguration.Provider()])
        let network = try DaemonConfiguration.parse(text: "[provider]\nkind = \"network\"\n", file: file)
        #expect(network.provider.kind == .network)
    }

    @Test("U13: url is https://, or http:// on a loopback host only; anything else is refused with what is allowed")
    func urls() throws {
        for url in [
            "https://api.beacondb.net/v1/geolocate", "http://127.0.0.1:8080/v1/geolocate", "http://localhost/geo",
            "http://[::1]:9/v1/geolocate", "http://127.1.2.3/x", "HTTPS://EXAMPLE.ORG/x",
        ] {
            let configuration = try DaemonConfiguration.parse(
                text: "[[provider]]\nkind = \"network\"\nurl = \"\(url)\"\n",
                file: file
            )
            #expect(configuration.providers[0].url == url)
        }
        let allowed = "expected an https:// URL, or http:// on a loopback host (localhost, 127.0.0.1, [::1])"
        for url in [
            "http://api.beacondb.net/v1/geolocate", "ftp://127.0.0.1/x", "https://", "beacondb.net",
            "http://127.evil.example/x", "http://10.0.0.1/x", "",
        ] {
            #expect(
                failure("[[provider]]\nkind = \"network\"\nurl = \"\(url)\"\n")
                    == "/etc/locd/locd.toml:3: key provider[1].url: \(allowed), found \"\(url)\""
            )
        }
        #expect(
            failure("[[provider]]\nkind = \"network\"\nurl = 443\n")
                == "/etc/locd/locd.toml:3: key provider[1].url: \(allowed), found integer"
        )
    }

    @Test("U13: each [[provider]] table's errors name it by position and line")
    func elementErrors() {
        #expect(
            failure("[[provider]]\nkind = \"gpsd\"\n[[provider]]\nkind = \"network\"\ninterval = 0\n")
                == "/etc/locd/locd.toml:5: key provider[2].interval: expected a number of seconds > 0, found 0"
        )
        #expect(
            failure("[[provider]]\nkind = \"network\"\naccess-points = \"iwd\"\n")
                == #"/etc/locd/locd.toml:3: key provider[1].access-points: expected one of "auto", "wpa-supplicant", "#
                + #""network-manager", found "iwd""#
        )
        #expect(
            failure("[[provider]]\nkind = \"network\"\nconsider-ip = \"yes\"\n")
                == "/etc/locd/locd.toml:3: key provider[1].consider-ip: expected true or false, found string"
        )
        #expect(
            failure("[[provider]]\nkind = \"gpsd\"\nstale-after = -1\n")
                == "/etc/locd/locd.toml:3: key provider[1].stale-after: expected a number of seconds > 0, found -1"
        )
        #expect(
            failure("[[provider]]\nkind = \"gpsd\"\nspeed = 1\n")?.hasPrefix(
                "/etc/locd/locd.toml:3: key provider[1].speed: unknown key; allowed in [[provider]]: kind, latitude"
            ) == true
        )
    }

    @Test("U13: every [[provider]] table names its kind; nmea needs its file; minimum-interval fits in interval")
    func requirements() {
        #expect(
            failure("[[provider]]\nkind = \"gpsd\"\n[[provider]]\nport = 2948\n")
                == #"/etc/locd/locd.toml:3: key provider[2]: each [[provider]] table needs a kind: one of "static", "#
                + #""nmea", "gpsd", "network""#
        )
        #expect(
            failure("[[provider]]\nkind = \"gpsd\"\n[[provider]]\nkind = \"nmea\"\n")
                == #"/etc/locd/locd.toml:4: key provider[2].file: required when kind = "nmea": the NMEA 0183 file to "#
                + "replay"
        )
        #expect(
            failure("[[provider]]\nkind = \"network\"\ninterval = 5\n")
                == "/etc/locd/locd.toml:2: key provider[1].minimum-interval: must not be longer than interval "
                + "(10.0 s > 5.0 s)"
        )
        #expect(
            failure("provider = []\n")
                == "/etc/locd/locd.toml:1: key provider: expected at least one [[provider]] table"
        )
    }

    @Test("U17: drop-ins: [[provider]] tables replace the list; a [provider] table after a list of several is refused")
    func dropIns() throws {
        try TemporaryDirectory.with { directory in
            let main = try directory.write("locd.toml", "[provider]\nkind = \"gpsd\"\n")
            try directory.write(
                "locd.toml.d/50-network.toml",
                "[[provider]]\nkind = \"gpsd\"\n[[provider]]\nkind = \"network\"\n"
            )
            let configuration = try DaemonConfiguration.loadOwn(path: main)
            #expect(configuration.providers.map(\.kind) == [.gpsd, .network])

            try directory.write("locd.toml.d/60-port.toml", "[provider]\nport = 2948\n")
            let issue = #expect(throws: ConfigurationIssue.self) { try DaemonConfiguration.loadOwn(path: main) }
            #expect(
                issue?.description
                    == directory.at("locd.toml.d/60-port.toml") + ":1: key provider: a [provider] table cannot "
                    + "change the 2 [[provider]] tables of an earlier file; write [[provider]] tables here to "
                    + "replace them all"
            )
        }
    }
}
