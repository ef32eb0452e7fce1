import Foundation
import Testing

/// A GeoClue2 client program as distributions ship it, run unchanged against a private bus: how to run it, the
/// `DesktopId` it sets, and how to read the location it prints.
enum RealGeoClueClient: String, CaseIterable, CustomTestStringConvertible {
    /// GeoClue's demo client at exact level.
    case whereAmIExact
    /// GeoClue's demo client at city level.
    case whereAmICity
    /// `gammastep -p -l geoclue2`, which never sets a level: GeoClue's default, city.
    case gammastep
    /// `redshift -p -l geoclue2`, the same as gammastep.
    case redshift
    /// libgeoclue's Geoclue.Simple from Python GI at city level (Fixtures/simple_client.py).
    case simple

    static let whereAmI = "/usr/libexec/geoclue-2.0/demos/where-am-i"

    var testDescription: String {
        switch self {
        case .whereAmIExact: "where-am-i -a 8"
        case .whereAmICity: "where-am-i -a 4"
        case .gammastep: "gammastep"
        case .redshift: "redshift"
        case .simple: "Geoclue.Simple"
        }
    }

    /// The `DesktopId` the program sets, which locd-geoclue takes as its app id.
    var appId: String {
        switch self {
        case .whereAmIExact, .whereAmICity: "geoclue-where-am-i"
        case .gammastep: "gammastep"
        case .redshift: "redshift"
        case .simple: "test.simple"
        }
    }

    /// Whether it asks for exact locations (else city, which is served approximate ones: G2).
    var exact: Bool { self == .whereAmIExact }

    /// Why it cannot run here, or nil.
    var unavailable: String? {
        let (path, package): (String, String) =
            switch self {
            case .whereAmIExact, .whereAmICity: (Self.whereAmI, "geoclue-2-demo")
            case .gammastep: ("/usr/bin/gammastep", "gammastep")
            case .redshift: ("/usr/bin/redshift", "redshift")
            case .simple: (Self.geoclueTypelib, "gir1.2-geoclue-2.0")
            }
        return FileManager.default.fileExists(atPath: path) ? nil : "\(path) is missing (Debian: \(package))"
    }

    /// libgeoclue's GObject introspection data, in the machine's multiarch folder of /usr/lib.
    static let geoclueTypelib: String = {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
        let candidates = folders.map { "/usr/lib/\($0)/girepository-1.0/Geoclue-2.0.typelib" }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
            ?? "/usr/lib/girepository-1.0/Geoclue-2.0.typelib"
    }()

    /// It prints the location it got and exits (where-am-i after its -t seconds).
    var program: [String] {
        switch self {
        case .whereAmIExact: [Self.whereAmI, "-t", "20", "-a", "8"]
        case .whereAmICity: [Self.whereAmI, "-t", "20", "-a", "4"]
        case .gammastep: ["/usr/bin/gammastep", "-p", "-l", "geoclue2"]
        case .redshift: ["/usr/bin/redshift", "-p", "-l", "geoclue2"]
        case .simple: ["/usr/bin/python3", GeoClueHarness.fixture("simple_client.py"), appId, "4"]
        }
    }

    /// It keeps running, and its client active, until stopped: gammastep and redshift adjusting a dummy display.
    var lasting: [String] {
        switch self {
        case .whereAmIExact, .whereAmICity: program
        case .gammastep: ["/usr/bin/gammastep", "-l", "geoclue2", "-m", "dummy", "-v"]
        case .redshift: ["/usr/bin/redshift", "-l", "geoclue2", "-m", "dummy", "-v"]
        case .simple: program + ["hold"]
        }
    }

    /// The location in what it printed, once it printed one: latitude, longitude and, where it prints it, accuracy.
    func location(in output: String) -> (latitude: Double, longitude: Double, accuracy: Double?)? {
        func number(after label: String) -> Double? {
            guard let range = output.range(of: label) else { return nil }
            let rest = output[range.upperBound...].drop { $0 == " " }
            return Double(rest.prefix { $0.isNumber || $0 == "." || $0 == "-" })
        }
        switch self {
        case .whereAmIExact, .whereAmICity:
            // The accuracy line follows the longitude: wait for it, so the block is whole.
            guard let latitude = number(after: "Latitude:"), let longitude = number(after: "Longitude:"),
                let accuracy = number(after: "Accuracy:")
            else { return nil }
            return (latitude, longitude, accuracy)
        case .gammastep, .redshift:
            // "Location: 52.52 N, 13.40 E"
            guard let latitude = number(after: "Location:"), let longitude = number(after: " N,") else { return nil }
            return (latitude, longitude, nil)
        case .simple:
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("{") }),
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let latitude = object["latitude"] as? Double, let longitude = object["longitude"] as? Double
            else { return nil }
            return (latitude, longitude, object["accuracy"] as? Double)
        }
    }
}
