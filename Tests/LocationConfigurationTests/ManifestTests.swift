import LocationTestSupport
import Testing

@testable import LocationConfiguration
@testable import LocationCore

/// App manifests: the Info.plist of locd (SEMANTICS §2, M1).
@Suite("Manifests")
struct ManifestTests {
    /// Parses `text` as the manifest `apps.d/<file>`.
    private func parse(_ text: String, file: String = "apps.d/com.ex.maps.toml") -> ManifestParser.Outcome {
        ManifestParser.parse(text: text, file: file)
    }

    @Test("S2: the iOS 8 NSLocationAlwaysUsageDescription is recognised, not read, and named with its replacement")
    func legacyAlwaysKey() throws {
        let outcome = parse(
            """
            id = "com.ex.maps"
            NSLocationWhenInUseUsageDescription = "Shows you on the map."
            NSLocationAlwaysUsageDescription = "Tracks your trips."
            identity = "any"
            """
        )
        let manifest = try #require(outcome.manifest)
        #expect(manifest.legacyAlwaysUsageDescription)
        #expect(manifest.alwaysAndWhenInUseUsageDescription == nil, "the old key does not stand in for the new one")
        #expect(
            outcome.warnings.map(\.description) == [
                "apps.d/com.ex.maps.toml:3: key NSLocationAlwaysUsageDescription: the iOS 8 key, not read: use "
                    + "NSLocationAlwaysAndWhenInUseUsageDescription (with NSLocationWhenInUseUsageDescription) instead"
            ]
        )
        let error = try #require(manifest.declarationFailure(for: .always, purposeKey: nil))
        #expect(error.message.contains("NSLocationAlwaysUsageDescription is the iOS 8 key"))
        #expect(parse("id = \"com.ex.maps\"\nidentity = \"any\"").manifest?.legacyAlwaysUsageDescription == false)
    }

    // MARK: M1: rejected files name file, line and key

    @Test("L14, M1: LSBackgroundOnly is read, and refused without the Always text that says why")
    func backgroundOnly() throws {
        let base = "id = \"com.ex.maps\"\nidentity = \"any\"\nNSLocationWhenInUseUsageDescription = \"Map\"\n"
        let without = parse(base + "LSBackgroundOnly = true\n")
        #expect(without.manifest == nil)
        #expect(without.errors.map(\.description).joined().contains("NSLocationAlwaysAndWhenInUseUsageDescription"))
        let with = parse(base + "LSBackgroundOnly = true\nNSLocationAlwaysAndWhenInUseUsageDescription = \"All day\"\n")
        #expect(with.manifest?.backgroundOnly == true && with.warnings.isEmpty)
        #expect(parse(base).manifest?.backgroundOnly == false)
    }

    @Test("M1: a manifest that does not parse is rejected, naming file, line and the key written there")
    func parseErrorNamesLine() {
        let outcome = parse(
            """
            id = "com.ex.maps"
            NSLocationWhenInUseUsageDescription = "an unterminated string
            identity = "any"
            """
        )
        #expect(outcome.manifest == nil)
        #expect(outcome.errors.count == 1)
        #expect(outcome.errors.first?.file == "apps.d/com.ex.maps.toml")
        #expect(outcome.errors.first?.line == 2)
        #expect(outcome.errors.first?.key == "NSLocationWhenInUseUsageDescription")
        #expect(outcome.errors.first?.message.hasPrefix("not valid TOML: ") == true)
    }

    @Test("M1: a manifest without id is rejected and says which id it must declare")
    func missingID() {
        let outcome = parse("NSLocationWhenInUseUsageDescription = \"Shows you on the map.\"\nidentity = \"any\"")
        #expect(outcome.manifest == nil)
        #expect(
            outcome.errors.map(\.description) == [
                #"apps.d/com.ex.maps.toml: key id: required: the app id, equal to the file name "com.ex.maps""#
            ]
        )
    }

    @Test("M1: a key of the wrong type is rejected, naming file, line and key")
    func wrongTypeNamesLineAndKey() {
        let outcome = parse(
            """
            # A manifest with a number where a sentence belongs.
            id = "com.ex.maps"
            NSLocationWhenInUseUsageDescription = 42
            identity = "any"
            """
        )
        #expect(outcome.manifest == nil)
        #expect(
            outcome.errors.map(\.description) == [
                "apps.d/com.ex.maps.toml:3: key NSLocationWhenInUseUsageDescription: expected a string, found integer"
            ]
        )
    }

    @Test("M1: every wrongly typed key is reported at once, each on its own line, nested keys by their path")
    func everyWrongKeyReported() {
        let outcome = parse(
            """
            id = "com.ex.maps"
            NSLocationDefaultAccuracyReduced = "yes"
            UIBackgroundModes = "location"
            identity = "any"

            [NSLocationTemporaryUsageDescriptionDictionary]
            Navigation = "Directions need your precise location."
            "Parking Spot" = 7
            """
        )
        #expect(outcome.manifest == nil)
        #expect(
            outcome.errors.map(\.description) == [
                "apps.d/com.ex.maps.toml:2: key NSLocationDefaultAccuracyReduced: expected true or false, found string",
                "apps.d/com.ex.maps.toml:3: key UIBackgroundModes: expected an array of strings, found string",
                "apps.d/com.ex.maps.toml:8: key NSLocationTemporaryUsageDescriptionDictionary.\"Parking Spot\": "
                    + "expected a string, found integer",
            ]
        )
    }

    @Test("M1: an id that differs from the file name stem is rejected")
    func idMustMatchStem() {
        let outcome = parse(
            """
            id = "com.ex.navigation"
            NSLocationWhenInUseUsageDescription = "Shows you on the map."
            identity = "any"
            """
        )
        #expect(outcome.manifest == nil)
        #expect(
            outcome.errors.map(\.description) == [
                #"apps.d/com.ex.maps.toml:1: key id: must equal the file name "com.ex.maps", found "com.ex.navigation""#
            ]
        )
    }

    @Test("M1: an unknown key is a warning naming its line; the manifest still loads without it")
    func unknownKeyIsAWarning() {
        let outcome = parse(
            """
            id = "com.ex.maps"
            identity = "any"
            CFBundleDisplayName = "Maps"
            """
        )
        #expect(outcome.errors == [])
        #expect(outcome.manifest == Manifest(appID: "com.ex.maps", source: "apps.d/com.ex.maps.toml", identity: .any))
        #expect(
            outcome.warnings.map(\.description) == [
                "apps.d/com.ex.maps.toml:3: key CFBundleDisplayName: unknown key, ignored"
            ]
        )
    }

    @Test("M1: one broken manifest is rejected and the others in the directory still load")
    func othersStillLoad() throws {
        try TemporaryDirectory.with { directory in
            try directory.write("apps.d/com.ex.maps.toml", "id = \"com.ex.maps\"\nidentity = \"any\"\n")
            try directory.write("apps.d/com.ex.weather.toml", "id = \"com.ex.weather\"\nidentity = \"any\"\n")
            let broken = try directory.write("apps.d/com.ex.broken.toml", "id = \"com.ex.broken\"\nidentity = 3\n")
            try directory.write("apps.d/README.md", "not a manifest")
            try directory.write("apps.d/.#com.ex.maps.toml", "an editor's lock file")

            let result = ManifestLoader.load(directories: [directory.at("apps.d")])

            #expect(result.manifests.map(\.appID) == ["com.ex.maps", "com.ex.weather"])
            #expect(
                result.errors.map(\.description) == [
                    #"\#(broken):2: key identity: expected one of "executable", "uid", "any", found integer"#
                ]
            )
            #expect(result.warnings == [])
        }
    }

    @Test("M1: a later directory's file of the same name overrides the earlier one; other files stay")
    func laterDirectoryOverrides() throws {
        try TemporaryDirectory.with { directory in
            try directory.write(
                "vendor/com.ex.maps.toml",
                "id = \"com.ex.maps\"\nidentity = \"any\"\nNSLocationWhenInUseUsageDescription = \"vendor\"\n"
            )
            try directory.write("vendor/com.ex.weather.toml", "id = \"com.ex.weather\"\nidentity = \"any\"\n")
            let admin = try directory.write(
                "admin/com.ex.maps.toml",
                "id = \"com.ex.maps\"\nidentity = \"any\"\nNSLocationWhenInUseUsageDescription = \"admin\"\n"
            )

            let result = ManifestLoader.load(directories: [directory.at("vendor"), directory.at("admin")])

            #expect(result.errors == [])
            #expect(result.manifests.map(\.appID) == ["com.ex.maps", "com.ex.weather"])
            #expect(result.manifests.first?.whenInUseUsageDescription == "admin")
            #expect(result.manifests.first?.source == admin)
        }
    }

    @Test("M1: a broken override hides the earlier file rather than falling back to it")
    func brokenOverrideHidesEarlierFile() throws {
        try TemporaryDirectory.with { directory in
            try directory.write("vendor/com.ex.maps.toml", "id = \"com.ex.maps\"\nidentity = \"any\"\n")
            let admin = try directory.write("admin/com.ex.maps.toml", "identity = \"any\"\n")

            let result = ManifestLoader.load(directories: [directory.at("vendor"), directory.at("admin")])

            #expect(result.manifests == [])
            #expect(result.errors.map(\.file) == [admin])
            #expect(result.errors.map(\.key) == ["id"])
        }
    }

    @Test("M1: a missing apps directory is skipped without an error")
    func missingDirectorySkipped() throws {
        try TemporaryDirectory.with { directory in
            try directory.write("admin/com.ex.maps.toml", "id = \"com.ex.maps\"\nidentity = \"any\"\n")

            let result = ManifestLoader.load(directories: [directory.at("no-such-vendor-dir"), directory.at("admin")])

            #expect(result.manifests.map(\.appID) == ["com.ex.maps"])
            #expect(result.errors == [])
        }
    }

    @Test("M1: a file that is not UTF-8 is rejected naming the line of the first bad byte")
    func notUTF8() {
        let bytes = Array("id = \"com.ex.maps\"\nidentity = \"".utf8) + [0xFF, 0xFE] + Array("\"\n".utf8)
        let outcome = ManifestParser.parse(bytes: bytes, file: "apps.d/com.ex.maps.toml")
        #expect(outcome.manifest == nil)
        #expect(outcome.errors.map(\.description) == ["apps.d/com.ex.maps.toml:2: not UTF-8 text"])
    }

    // MARK: §2: keys

    @Test("§2: every manifest key, in Apple's spelling, maps onto the manifest")
    func everyKeyMaps() {
        let outcome = parse(
            """
            id = "com.ex.maps"
            NSLocationWhenInUseUsageDescription = "Shows you on the map."
            NSLocationAlwaysAndWhenInUseUsageDescription = "Guides you while you use other apps."
            NSLocationDefaultAccuracyReduced = true
            CLRequireExplicitServiceSession = true
            UIBackgroundModes = ["audio", "location"]
            identity = "uid"
            executables = ["/usr/bin/maps"]
            users = ["alice", 1000]
            NSLocationTemporaryUsageDescriptionDictionary = { Navigation = "Directions need precision." }
            """
        )
        #expect(outcome.errors == [])
        #expect(outcome.warnings == [])
        #expect(
            outcome.manifest
                == Manifest(
                    appID: "com.ex.maps",
                    source: "apps.d/com.ex.maps.toml",
                    whenInUseUsageDescription: "Shows you on the map.",
                    alwaysAndWhenInUseUsageDescription: "Guides you while you use other apps.",
                    temporaryUsageDescriptions: ["Navigation": "Directions need precision."],
                    defaultAccuracyReduced: true,
                    requireExplicitServiceSession: true,
                    backgroundLocation: true,
                    identity: .uid,
                    executables: ["/usr/bin/maps"],
                    users: ["alice", "1000"]
                )
        )
    }

    @Test("§2: absent keys take their defaults: no descriptions, no explicit-session opt-out, no background mode")
    func defaults() {
        let outcome = parse(
            """
            id = "com.ex.maps"
            identity = "executable"
            executables = ["/usr/bin/maps"]
            """
        )
        #expect(outcome.errors == [])
        #expect(outcome.warnings == [])
        #expect(
            outcome.manifest
                == Manifest(appID: "com.ex.maps", source: "apps.d/com.ex.maps.toml", executables: ["/usr/bin/maps"])
        )
        let unusable = parse("id = \"com.ex.maps\"\nidentity = \"executable\"")
        #expect(unusable.manifest?.identity == .executable)
        #expect(
            unusable.warnings.map(\.description) == [
                "apps.d/com.ex.maps.toml:2: key identity: identity is \"executable\" but executables is empty, "
                    + "so no process can say Hello"
            ]
        )
    }

    @Test(
        "M4: a manifest file without identity is rejected, naming file, the line of id and the key, saying what to write"
    )
    func identityRequired() {
        let outcome = parse(
            """
            # Maps
            id = "com.ex.maps"
            NSLocationWhenInUseUsageDescription = "Shows you on the map."
            executables = ["/usr/bin/maps"]
            """
        )
        #expect(outcome.manifest == nil)
        #expect(outcome.errors.count == 1)
        let error = outcome.errors.first
        #expect(error?.file == "apps.d/com.ex.maps.toml")
        #expect(error?.line == 2)
        #expect(error?.key == "identity")
        #expect(
            error?.description
                == "apps.d/com.ex.maps.toml:2: key identity: required: who may say Hello as this app. Write "
                + #"identity = "executable" with executables = ["/usr/bin/PROGRAM"] (the app's own programs, as "#
                + #"/proc/PID/exe names them), or identity = "uid" with users = ["USER"]; identity = "any" lets "#
                + "every process be this app (demos only)"
        )
        // Every other mistake is reported with it, in the order of the lines.
        let both = parse("id = \"com.ex.maps\"\nUIBackgroundModes = \"location\"")
        #expect(both.errors.map(\.key) == ["identity", "UIBackgroundModes"])
    }

    @Test("M4: a scenario's inline manifest may leave identity out: it checks no process")
    func inlineIdentityOptional() throws {
        let document = try TOMLDocument(
            file: "scenario.toml",
            text: "[apps.\"com.ex.maps\"]\nNSLocationWhenInUseUsageDescription = \"Shows you on the map.\"\n"
        )
        let inline = try #require(document.scoped(to: ["apps", "com.ex.maps"]))
        let outcome = ManifestParser.parse(inline: inline, appID: "com.ex.maps")
        #expect(outcome.errors == [])
        #expect(outcome.manifest?.whenInUseUsageDescription == "Shows you on the map.")
    }

    @Test("§2: NSLocationRequireExplicitServiceSession is accepted as a synonym of CLRequireExplicitServiceSession")
    func explicitSessionSynonym() {
        let synonym = parse("id = \"com.ex.maps\"\nidentity = \"any\"\nNSLocationRequireExplicitServiceSession = true")
        #expect(synonym.manifest?.requireExplicitServiceSession == true)
        #expect(synonym.warnings == [])

        let contradiction = parse(
            """
            id = "com.ex.maps"
            CLRequireExplicitServiceSession = true
            NSLocationRequireExplicitServiceSession = false
            identity = "any"
            """
        )
        #expect(contradiction.manifest == nil)
        #expect(
            contradiction.errors.map(\.description) == [
                "apps.d/com.ex.maps.toml:3: key NSLocationRequireExplicitServiceSession: "
                    + "contradicts CLRequireExplicitServiceSession = true; keep one of the two spellings"
            ]
        )
    }

    @Test("§2: UIBackgroundModes allows background location only when it lists \"location\"")
    func backgroundModes() {
        let audioOnly = parse("id = \"com.ex.maps\"\nidentity = \"any\"\nUIBackgroundModes = [\"audio\"]")
        #expect(audioOnly.manifest?.backgroundLocation == false)
        let location = parse("id = \"com.ex.maps\"\nidentity = \"any\"\nUIBackgroundModes = [\"location\"]")
        #expect(location.manifest?.backgroundLocation == true)
    }

    @Test("§2: identity is one of executable, uid, any; executables are absolute paths; users are names or uids")
    func identityValues() {
        let badIdentity = parse("id = \"com.ex.maps\"\nidentity = \"root\"")
        #expect(
            badIdentity.errors.map(\.description) == [
                #"apps.d/com.ex.maps.toml:2: key identity: expected one of "executable", "uid", "any", found "root""#
            ]
        )
        let relative = parse(
            "id = \"com.ex.maps\"\nexecutables = [\"/usr/bin/maps\", \"bin/maps\"]\nidentity = \"executable\""
        )
        #expect(
            relative.errors.map(\.description) == [
                #"apps.d/com.ex.maps.toml:2: key executables: expected an array of absolute paths, "#
                    + #"found "bin/maps" at position 2"#
            ]
        )
        let negativeUID = parse("id = \"com.ex.maps\"\nidentity = \"uid\"\nusers = [-1]")
        #expect(
            negativeUID.errors.map(\.description) == [
                "apps.d/com.ex.maps.toml:3: key users: expected an array of user names or uids, "
                    + "found integer at position 1"
            ]
        )
    }

    @Test("M1: the line of a key is found under quoted and dotted headers, dotted keys and inline tables")
    func lineLocator() {
        let locator = TOMLLineLocator(
            text: """
                # comment = 1
                a = 1
                text = \"\"\"
                b = not a key
                \"\"\"
                "quoted key" = 2
                [ "x.y" . z ]
                c = 3
                d.e = 4
                f = { g = 5, h = { i = 6 } }
                [[servers]]
                name = 'x'
                """
        )
        #expect(locator.line(of: ["a"]) == 2)
        #expect(locator.line(of: ["b"]) == nil)
        #expect(locator.line(of: ["quoted key"]) == 6)
        #expect(locator.line(of: ["x.y", "z"]) == 7)
        #expect(locator.line(of: ["x.y", "z", "c"]) == 8)
        #expect(locator.line(of: ["x.y", "z", "d", "e"]) == 9)
        #expect(locator.line(of: ["x.y", "z", "f", "h", "i"]) == 10)
        #expect(locator.line(of: ["x.y", "z", "unwritten"]) == 7)
        #expect(locator.line(of: ["servers", "name"]) == 12)
        #expect(locator.keyPath(atLine: 9) == ["x.y", "z", "d", "e"])
    }
}
