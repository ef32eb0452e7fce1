import JSON
import Varlink

extension VarlinkClient {
    /// Starts a streaming call and returns its first reply's parameters.
    package func stream(_ method: String, _ parameters: JSONObject = [:]) throws -> JSONObject {
        try send(VarlinkCall(method: method, parameters: parameters, more: true))
        return try next()
    }

    /// The next reply of an open stream; an error reply throws.
    package func next() throws -> JSONObject {
        let reply = try receive()
        if let error = reply.error { throw VarlinkError(name: error, parameters: reply.parameters) }
        return reply.parameters
    }

    /// Reads stream replies until one satisfies `condition`; returns it.
    package func next(until condition: (JSONObject) -> Bool) throws -> JSONObject {
        while true {
            let reply = try next()
            if condition(reply) { return reply }
        }
    }
}

extension JSONObject {
    /// `diagnostic.flags` of a reply, of its `session`, or of its `update`.
    package var flags: [String] {
        let diagnostic = self["diagnostic"] ?? self["session"]?["diagnostic"] ?? self["update"]?["diagnostic"]
        return diagnostic?["flags"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    package var sessionID: String? { self["session"]?["id"]?.stringValue }
}

/// Catches the Varlink error name a call throws.
package func errorName(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as VarlinkError {
        return error.name
    } catch {
        return "\(error)"
    }
}

/// An app authorized by an admin, holding a `whenInUse` session, and a second connection of the app
/// watching that session's diagnostics.
package struct WatchedSession {
    package let admin: VarlinkClient
    package let app: VarlinkClient
    package let watcher: VarlinkClient
    package let id: String
    /// The first reply of the diagnostics stream.
    package let firstFlags: [String]
}

extension DaemonProcess {
    package func watchedSession(
        _ appID: String = "com.ex.maps",
        setting: String = "whileUsing"
    ) throws -> WatchedSession {
        let admin = try authorize(appID, setting)
        let app = try self.app(appID)
        let created = try app.call("io.locd.App.CreateSession", ["authorization": .string("whenInUse")])
        guard let id = created.sessionID else { throw VarlinkClient.ClientError.malformedReply }
        let watcher = try self.app(appID)
        let first = try watcher.stream("io.locd.App.SessionDiagnostics", ["id": .string(id)])
        return WatchedSession(admin: admin, app: app, watcher: watcher, id: id, firstFlags: first.flags)
    }
}
