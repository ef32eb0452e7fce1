import CSdBus

/// A D-Bus error locd-geoclue answers with: a standard `org.freedesktop.DBus.Error` name, and a message that
/// says what to do.
struct GeoClueError: Error, Sendable, Equatable {
    var name: String
    var message: String

    static func accessDenied(_ message: String) -> GeoClueError {
        GeoClueError(name: "org.freedesktop.DBus.Error.AccessDenied", message: message)
    }

    static func invalidArgs(_ message: String) -> GeoClueError {
        GeoClueError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    static func limitsExceeded(_ message: String) -> GeoClueError {
        GeoClueError(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: message)
    }

    static func failed(_ message: String) -> GeoClueError {
        GeoClueError(name: "org.freedesktop.DBus.Error.Failed", message: message)
    }

    /// Sets a callback's `sd_bus_error` to this error; returns what the callback returns (a negative errno).
    func set(_ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        sd_bus_error_set(error, name, message)
    }
}
