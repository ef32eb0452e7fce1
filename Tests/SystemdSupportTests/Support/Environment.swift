#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` with the given variables set (or unset, for `nil`), then puts the old values back.
func withEnvironment<Result>(_ variables: [String: String?], _ body: () throws -> Result) rethrows -> Result {
    var saved: [String: String?] = [:]
    for (name, value) in variables {
        saved[name] = getenv(name).map { String(cString: $0) }
        set(name, value)
    }
    defer {
        for (name, value) in saved {
            set(name, value)
        }
    }
    return try body()
}

private func set(_ name: String, _ value: String?) {
    if let value {
        setenv(name, value, 1)
    } else {
        unsetenv(name)
    }
}

/// Reads a variable of the process environment.
func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
