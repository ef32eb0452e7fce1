import Foundation
import JSON
import LocationClient
import LocationTestSupport
import Testing
import Varlink

/// The client library reads the golden messages of LocationProtocolTests, which locd's encoders write byte for byte.
@Suite("LocationClient against the golden messages")
struct ClientWireGoldenTests {
    @Test("PROTOCOL: the client reads each golden Authorization into Core Location's shape")
    func authorizations() throws {
        for message in try WireGolden.messages("Authorization") {
            let authorization = try Authorization(wire: message)
            #expect(authorization.status.rawValue == message["status"]?.stringValue)
            #expect(authorization.accuracy.rawValue == message["accuracy"]?.stringValue)
            #expect(authorization.settingsLabel.rawValue == message["settingsLabel"]?.stringValue)
            #expect(authorization.provisional == message["provisional"]?.boolValue)
            #expect(authorization.oneTime == message["oneTime"]?.boolValue)
            #expect(authorization.temporaryFullAccuracy == message["temporaryFullAccuracy"]?.boolValue)
        }
    }

    @Test("PROTOCOL: the client reads each golden Diagnostic, its flags named as the wire names them")
    func diagnostics() throws {
        for message in try WireGolden.messages("Diagnostic") {
            let diagnostic = try ServiceSession.Diagnostic(wire: message)
            #expect(Int64(diagnostic.mask) == message["mask"]?.intValue)
            #expect(diagnostic.flags.names == message["flags"]?.arrayValue?.compactMap(\.stringValue))
        }
    }

    @Test("PROTOCOL: the client reads each golden Session as a session it may resume")
    func sessions() throws {
        for message in try WireGolden.messages("Session") {
            let session = try #require(LingeringSession(wire: message), "\(message.serialized)")
            #expect(session.id == message["id"]?.stringValue)
            #expect(session.kind.rawValue == message["kind"]?.stringValue)
            #expect(session.authorization.rawValue == message["authorization"]?.stringValue)
            #expect(session.fullAccuracyPurposeKey == message["fullAccuracyPurposeKey"]?.stringValue)
        }
    }

    @Test("PROTOCOL: the client reads each golden Update, its location present or not")
    func updates() throws {
        for message in try WireGolden.messages("Update") {
            let update = try LocationUpdate(wire: message)
            let location = message["location"]
            #expect(update.location?.latitude == location?["latitude"]?.doubleValue)
            #expect(update.location?.altitude == location?["altitude"]?.doubleValue)
            #expect(update.location?.horizontalAccuracy == location?["horizontalAccuracy"]?.doubleValue)
            #expect(update.location?.timestamp.timeIntervalSince1970 == location?["timestamp"]?.doubleValue)
            #expect(Int64(update.flags.rawValue) == message["diagnostic"]?["mask"]?.intValue)
        }
    }

    @Test("PROTOCOL: the client reads each golden io.locd.App error reply as its own case, with its message")
    func errors() throws {
        for message in try WireGolden.messages("Error") {
            let name = try #require(message["error"]?.stringValue)
            let parameters = try #require(message["parameters"]?.objectValue)
            let error = LocationClientError(VarlinkError(name: name, parameters: parameters))
            #expect(error.varlinkName == name)
            #expect(error.message == parameters["message"]?.stringValue ?? name)
            let ownCase =
                name.hasPrefix("io.locd.App.") || name.hasSuffix(".PermissionDenied")
                || name.hasSuffix(".InvalidParameter")
            if case .daemonError = error { #expect(!ownCase, "\(name) has a case of its own") }
        }
    }
}
