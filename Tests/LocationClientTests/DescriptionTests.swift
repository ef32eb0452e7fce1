import Foundation
import JSON
import Testing

@testable import LocationClient

/// What an app prints of the library's values: names, not bit masks; and a monitor's own events told apart from a
/// condition's.
@Suite("Descriptions")
struct DescriptionTests {
    @Test("D11: a Diagnostic prints the flags that are set by name, in bit order, and [] when nothing limits")
    func diagnosticByName() {
        let diagnostic = ServiceSession.Diagnostic(flags: [.insufficientlyInUse, .authorizationDenied])
        #expect("\(diagnostic)" == "Diagnostic[authorizationDenied, insufficientlyInUse]")
        #expect("\(ServiceSession.Diagnostic(flags: []))" == "Diagnostic[]")
        #expect("\(DiagnosticFlags.accuracyLimited)" == "[accuracyLimited]")
    }

    @Test("A2: an Authorization prints its status, accuracy, what qualifies them and the Settings label")
    func authorizationByName() {
        let provisional = Authorization(
            status: .authorizedAlways,
            accuracy: .fullAccuracy,
            provisional: true,
            settingsLabel: .whileUsing
        )
        #expect("\(provisional)" == "authorizedAlways, fullAccuracy, provisional (Settings: whileUsing)")
        let once = Authorization(
            status: .authorizedWhenInUse,
            accuracy: .reducedAccuracy,
            oneTime: true,
            settingsLabel: .askNextTime
        )
        #expect("\(once)" == "authorizedWhenInUse, reducedAccuracy, oneTime (Settings: askNextTime)")
    }

    @Test("U4: an event about the whole monitor has no identifier; a condition's event has its own")
    func monitorEventIdentifier() throws {
        let diagnostic: JSONValue = .object(["flags": .array([]), "mask": .int(0)])
        let whole = try Monitor.Event(
            wire: .object([
                "monitor": .string("places"), "identifier": .string(""), "state": .string("unknown"),
                "date": .double(1_700_000_000), "diagnostic": diagnostic,
            ])
        )
        #expect(whole.identifier == nil)
        let home = try Monitor.Event(
            wire: .object([
                "monitor": .string("places"), "identifier": .string("home"), "state": .string("satisfied"),
                "date": .double(1_700_000_000), "diagnostic": diagnostic,
            ])
        )
        #expect(home.identifier == "home")
    }
}
