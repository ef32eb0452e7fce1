import Foundation

/// Apps verified by their executable (SEMANTICS I1, I9), for the suites that attack that check: `com.ex.sleeper`
/// is `/usr/bin/sleep`, `com.ex.python` is python3 as /proc/PID/exe names it.
enum ExecutableManifests {
    /// Where python3 really is: /proc/PID/exe of a python process names it.
    static let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path

    static let all: [String: String] = [
        "com.ex.sleeper": """
        id = "com.ex.sleeper"
        identity = "executable"
        executables = ["/usr/bin/sleep"]
        NSLocationWhenInUseUsageDescription = "Sleeps"
        """,
        "com.ex.python": """
        id = "com.ex.python"
        identity = "executable"
        executables = ["\(python)"]
        NSLocationWhenInUseUsageDescription = "A python client"
        """,
    ]
}
